// SPDX-License-Identifier: Apache-2.0
#include "about_dialog.h"

#include <fathom/common/build_info.h>

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::studio {

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(u"aboutDialog"_s);
  setWindowTitle(tr("About Fathom Studio"));
  const auto& b = buildInfo();

  auto* title = new QLabel(u"<h2>Fathom Studio %1</h2>"_s.arg(QString::fromStdString(b.version)), this);
  auto* text = new QLabel(this);
  text->setObjectName(u"aboutText"_s);
  text->setTextFormat(Qt::RichText);
  text->setWordWrap(true);
  text->setText(tr("<p>A workbench for distributed PyTorch training: plan memory, communication and step time "
                   "before a run, launch it, and see why it is slow.</p>"
                   "<p>Git revision %1 (%2 build)<br>LibTorch %3<br>Qt %4 (running on %5)</p>"
                   "<p>Licensed under the Apache License 2.0.</p>")
                    .arg(QString::fromStdString(b.gitRevision), QString::fromStdString(b.buildType),
                         QString::fromStdString(b.libtorchVersion), QString::fromStdString(b.qtVersion),
                         QString::fromLatin1(qVersion())));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title);
  layout->addWidget(text);
  layout->addWidget(buttons);
}

}  // namespace fathom::studio
