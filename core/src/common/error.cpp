// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>

namespace fathom::detail {

void throwInternal(const char* file, int line, const char* condition, const std::string& message) {
  std::string text = concat("internal error at ", file, ":", line, ": assertion `", condition, "` failed");
  if (!message.empty()) {
    text += ": " + message;
  }
  throw InternalError(text);
}

}  // namespace fathom::detail
