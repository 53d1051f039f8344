// SPDX-License-Identifier: Apache-2.0
// Compiled with NDEBUG in every build type (sources.cmake): at::RecordFunction's layout depends on it, and LibTorch,
// which creates the objects this file's callbacks read, is built with it.
#ifndef NDEBUG
#error "aten_observer.cpp must be compiled with NDEBUG, as LibTorch is: at::RecordFunction's layout depends on it"
#endif
#include "profile/aten_observer.h"

#include "profile/capture_session.h"
#include "profile/gpu_correlation.h"
#include "profile/op_flops.h"

#include <fathom/profile/clock.h>

#include <ATen/record_function.h>

#include <sstream>

namespace fathom::profile::detail {

namespace {

/// What an operator's start callback hands to its end callback.
struct OpContext final : at::ObserverContext {
  std::int64_t startNs = 0;
  std::uint64_t generation = 0;
  std::uint64_t externalId = 0;
  bool pushedCorrelation = false;
  std::unique_ptr<OpExtras> extras;
};

void appendShape(std::string& out, c10::IntArrayRef sizes) {
  out += '[';
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += std::to_string(sizes[i]);
  }
  out += ']';
}

/// "Input Dims" / "Input type" (Kineto's names and formats) and the shapes for the FLOP estimate.
void describeInputs(const at::RecordFunction& fn, OpExtras& extras, std::vector<Shape>* shapes, bool text) {
  const auto inputs = fn.inputs();
  if (text) {
    extras.inputDims = "[";
    extras.inputTypes = "[";
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const c10::IValue& value = inputs[i];
    if (text && i > 0) {
      extras.inputDims += ", ";
      extras.inputTypes += ", ";
    }
    Shape shape;
    std::string type;
    if (value.isTensor()) {
      const at::Tensor& t = value.toTensor();
      if (t.defined()) {
        shape.assign(t.sizes().begin(), t.sizes().end());
        type = std::string(t.dtype().name());
      }
      if (text)
        appendShape(extras.inputDims, t.defined() ? t.sizes() : c10::IntArrayRef());
    } else if (value.isTensorList()) {
      type = "TensorList";
      if (text) {
        extras.inputDims += '[';
        bool first = true;
        for (const at::Tensor& t : value.toTensorList().vec()) {
          if (!first)
            extras.inputDims += ", ";
          first = false;
          appendShape(extras.inputDims, t.defined() ? t.sizes() : c10::IntArrayRef());
        }
        extras.inputDims += ']';
      }
    } else {
      if (value.isScalar())
        type = "Scalar";
      if (text)
        extras.inputDims += "[]";
    }
    if (text)
      extras.inputTypes += '"' + type + '"';
    if (shapes != nullptr)
      shapes->push_back(std::move(shape));
  }
  if (text) {
    extras.inputDims += ']';
    extras.inputTypes += ']';
  }
}

std::string joinSpans(const std::vector<std::uint32_t>& spans) {
  std::string out;
  for (std::uint32_t id : spans) {
    if (!out.empty())
      out += ';';
    out += InternedNames::instance().name(id);
  }
  return out;
}

std::unique_ptr<at::ObserverContext> onOperatorStart(const at::RecordFunction& fn) {
  CaptureSession* session = CaptureSession::active();
  if (session == nullptr || !session->collecting())
    return nullptr;
  const CaptureSettings& settings = session->settings();
  auto context = std::make_unique<OpContext>();
  context->generation = session->generation();
  context->externalId = session->nextExternalId();
  if (settings.recordShapes || settings.withFlops || settings.withStack || settings.withModules) {
    context->extras = std::make_unique<OpExtras>();
    if (settings.recordShapes || settings.withFlops) {
      std::vector<Shape> shapes;
      describeInputs(fn, *context->extras, settings.withFlops ? &shapes : nullptr, settings.recordShapes);
      if (settings.withFlops)
        context->extras->flops = estimateFlops(fn.name(), shapes);
    }
    if (settings.withStack || settings.withModules) {
      ThreadCapture& thread = session->thread();
      std::lock_guard lock(thread.mutex);
      if (settings.withStack)
        context->extras->callStack = joinSpans(thread.openSpans);
      if (settings.withModules) {
        for (const std::string& module : thread.openModules) {
          if (!context->extras->moduleHierarchy.empty())
            context->extras->moduleHierarchy += '.';
          context->extras->moduleHierarchy += module;
        }
      }
    }
  }
  if (settings.cuda && !inCollectiveIssue()) {
    pushGpuCorrelation(context->externalId);
    context->pushedCorrelation = true;
  }
  context->startNs = nowNs();
  return context;
}

void onOperatorEnd(const at::RecordFunction& fn, at::ObserverContext* observed) {
  const std::int64_t end = nowNs();
  auto* context = static_cast<OpContext*>(observed);
  if (context == nullptr)
    return;
  if (context->pushedCorrelation)
    popGpuCorrelation();
  CaptureSession* session = CaptureSession::active();
  if (session == nullptr || session->generation() != context->generation)
    return;
  const std::uint32_t nameId = InternedNames::instance().id(fn.name());
  ThreadCapture& thread = session->thread();
  std::lock_guard lock(thread.mutex);
  std::uint32_t extra = 0;
  if (context->extras) {
    thread.extras.push_back(std::move(*context->extras));
    extra = static_cast<std::uint32_t>(thread.extras.size());
  }
  const CpuEventKind kind = fn.scope() == at::RecordScope::USER_SCOPE ? CpuEventKind::Annotation : CpuEventKind::Op;
  thread.events.push_back({context->startNs, end, context->externalId, fn.seqNr(), nameId, extra, kind});
}

}  // namespace

AtenObserver::AtenObserver(const CaptureSettings& settings) {
  // Operators (FUNCTION), autograd nodes (BACKWARD_FUNCTION) and users' record_function ranges (USER_SCOPE):
  // what torch.profiler records as cpu_op / user_annotation on the CPU.
  auto callback =
      at::RecordFunctionCallback(&onOperatorStart, &onOperatorEnd)
          .needsInputs(settings.recordShapes || settings.withFlops)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION, at::RecordScope::USER_SCOPE});
  // Global, not thread-local: the autograd engine's and the users' threads are observed too.
  m_handle = at::addGlobalCallback(callback);
}

AtenObserver::~AtenObserver() {
  at::removeCallback(m_handle);
}

}  // namespace fathom::profile::detail
