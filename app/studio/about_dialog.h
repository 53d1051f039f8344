// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>

namespace fathom::studio {

/// Version, git revision, LibTorch and Qt versions, license.
class AboutDialog : public QDialog {
  Q_OBJECT

public:
  explicit AboutDialog(QWidget* parent = nullptr);
};

}  // namespace fathom::studio
