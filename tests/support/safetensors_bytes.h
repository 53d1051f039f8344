// SPDX-License-Identifier: Apache-2.0
// Safetensors files written by hand for the CLI tests (Qt only, no LibTorch): the 8-byte little-endian header length,
// the JSON header, zeros for the data. And the tensors a checkpoint of a module tree (the JSON `fathom device-map
// --print_tree` prints) stores: its parameters and persistent buffers, each tensor object once.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QSet>
#include <QString>

namespace fathom::test {

struct StoredTensor {
  QString name;
  QString dtype;  ///< as safetensors spells it: F32, BF16, I64, BOOL
  QList<qint64> shape;
};

inline qint64 storedBytes(const StoredTensor& t) {
  qint64 n = t.dtype == QLatin1String("F64") || t.dtype == QLatin1String("I64")    ? 8
             : t.dtype == QLatin1String("F32") || t.dtype == QLatin1String("I32")  ? 4
             : t.dtype == QLatin1String("F16") || t.dtype == QLatin1String("BF16") ? 2
                                                                                   : 1;
  for (const qint64 d : t.shape) {
    n *= d;
  }
  return n;
}

inline QByteArray safetensorsBytes(const QList<StoredTensor>& tensors) {
  QJsonObject header;
  qint64 offset = 0;
  for (const StoredTensor& t : tensors) {
    QJsonArray shape;
    for (const qint64 d : t.shape) {
      shape.append(d);
    }
    const qint64 bytes = storedBytes(t);
    header.insert(t.name, QJsonObject{{QStringLiteral("dtype"), t.dtype},
                                      {QStringLiteral("shape"), shape},
                                      {QStringLiteral("data_offsets"), QJsonArray{offset, offset + bytes}}});
    offset += bytes;
  }
  const QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
  QByteArray out;
  for (int i = 0; i < 8; ++i) {
    out.append(static_cast<char>((static_cast<quint64>(json.size()) >> (8 * i)) & 0xff));
  }
  return out + json + QByteArray(offset, '\0');
}

inline bool writeSafetensors(const QString& path, const QList<StoredTensor>& tensors) {
  QFile file(path);
  const QByteArray bytes = safetensorsBytes(tensors);
  return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

/// What save_pretrained stores of the model `tree` (a module tree in JSON): every parameter and persistent buffer,
/// a tensor shared by several names once, under its first; all in `dtype`.
inline QList<StoredTensor> storedTensorsOf(const QJsonObject& tree, const QString& dtype) {
  QList<StoredTensor> out;
  QSet<qint64> seen;
  for (const QJsonValue& m : tree.value(QStringLiteral("modules")).toArray()) {
    const QString prefix = m.toObject().value(QStringLiteral("name")).toString();
    for (const char* kind : {"parameters", "buffers"}) {
      for (const QJsonValue& t : m.toObject().value(QLatin1String(kind)).toArray()) {
        const QJsonObject o = t.toObject();
        if (!o.value(QStringLiteral("persistent")).toBool(true) ||
            seen.contains(o.value(QStringLiteral("tensor_id")).toInteger())) {
          continue;
        }
        seen.insert(o.value(QStringLiteral("tensor_id")).toInteger());
        QList<qint64> shape;
        for (const QJsonValue& d : o.value(QStringLiteral("shape")).toArray()) {
          shape.append(d.toInteger());
        }
        const QString local = o.value(QStringLiteral("name")).toString();
        out.append({prefix.isEmpty() ? local : prefix + QLatin1Char('.') + local, dtype, shape});
      }
    }
  }
  return out;
}

}  // namespace fathom::test
