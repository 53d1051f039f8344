// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "bigmodel/model_tree_source.h"

#include <fathom/bigmodel/device_map_strategy.h>
#include <fathom/bigmodel/dispatch_record.h>

#include <QWidget>

#include <map>
#include <memory>

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTreeView;

namespace fathom::views {

class DeviceBars;
class DeviceLimitsEditor;
class DeviceMapDocument;
class ModuleTreeModel;

/// The device-map view (big-model inference): open a model (a built-in one, or a module tree in JSON), set the devices
/// and their limits, the strategy, the weights' dtype and the classes kept whole, and see where each module goes: the
/// module tree with sizes, each row tinted by its device, and one bar per device (bytes placed against its limit).
/// Dragging a module onto a bar (or onto a module on another device), or picking a device in its Device cell, moves it
/// there; a move core refuses (a tied tensor separated) shows core's reason. "Export JSON…" writes the map as Hugging
/// Face's device-map JSON. Every number is core/bigmodel's, kept by a DeviceMapDocument.
class DeviceMapView : public QWidget {
  Q_OBJECT

public:
  explicit DeviceMapView(QWidget* parent = nullptr);

  DeviceMapDocument* document() const { return m_document; }
  ModuleTreeModel* treeModel() const { return m_treeModel; }
  QTreeView* treeView() const { return m_tree; }
  DeviceBars* bars() const { return m_bars; }
  DeviceLimitsEditor* limitsEditor() const { return m_limits; }

  /// Opens a built-in model (gpt-tiny, gpt-small, mlp).
  void openBuiltinModel(const QString& name);
  /// Opens a model file (loadModelTreeFile). False when it cannot be read: the message (naming the file) is shown and
  /// the model open before stays.
  bool openModelFile(const QString& path);
  /// Opens what a run recorded (bigmodel::DispatchRecord, docs/bigmodel.md "In the workspace"): the model's tree, the
  /// limits the map was planned with (when recorded; else each device the map uses, limited to what it holds there),
  /// its no-split classes, and the map itself, applied as moves on top of the strategy's plan ("Reset moves" shows the
  /// plan). `title` names it in the model list ("Run 12, rank 0: gpt-small"); choosing it there shows it again.
  void openRecord(const bigmodel::DispatchRecord& record, const QString& title);
  /// openRecord of a record's JSON (bigmodel::dispatchRecordFromJson). False when it cannot be read: core's message
  /// is shown and the model open before stays.
  bool openRecordJson(const QString& json, const QString& title);
  /// Whether the map shown is the one the last opened record dispatched with (no move since, nothing dropped).
  bool showsRecordedMap() const;
  /// Selects a strategy in the inputs (and plans with it).
  void setStrategy(bigmodel::DeviceMapStrategy strategy);
  /// The message shown under the bars: a refused move, a failed plan or file, moves dropped, an export; empty when
  /// none.
  QString message() const;
  /// Writes the map (DeviceMapDocument::exportJson); the interactive "Export JSON…" asks for the path first.
  bool exportJson(const QString& path, QString* error) const;

protected:
  void showEvent(QShowEvent* event) override;

private:
  QWidget* buildInputs();
  QWidget* buildResults();
  void openModel(const LoadedModelTree& model);
  void showModelInputs();
  void showPlan();
  void showMessage(const QString& text, bool error);
  void noSplitEdited();
  void openFileInteractive();
  void exportInteractive();

  DeviceMapDocument* m_document = nullptr;
  ModuleTreeModel* m_treeModel = nullptr;
  QComboBox* m_model = nullptr;
  QLabel* m_modelSummary = nullptr;
  DeviceLimitsEditor* m_limits = nullptr;
  QComboBox* m_strategy = nullptr;
  QComboBox* m_dtype = nullptr;
  QListWidget* m_noSplit = nullptr;
  QPushButton* m_reset = nullptr;
  QPushButton* m_export = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_message = nullptr;
  DeviceBars* m_bars = nullptr;
  QTreeView* m_tree = nullptr;
  bool m_updating = false;
  /// The records opened, by their key in the model list; the one shown last and its map as moves.
  std::map<QString, std::shared_ptr<const bigmodel::DispatchRecord>> m_records;
  bigmodel::DeviceMap m_recordMoves;
  QString m_recordTitle;
};

}  // namespace fathom::views
