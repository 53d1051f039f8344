// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

namespace fathom::test {

/// The child widget of type T called `name`; a test that asks for one that does not exist stops at once, naming it.
template <typename T> T* child(QWidget* parent, const QString& name) {
  T* w = parent->findChild<T*>(name);
  if (w == nullptr) {
    qFatal("no %s named %s", T::staticMetaObject.className(), qPrintable(name));
  }
  return w;
}

}  // namespace fathom::test
