// SPDX-License-Identifier: Apache-2.0
#pragma once

// The CUPTI headers, when this build has them and they are recent enough for the tracer. FATHOM_CUPTI_TRACING is 1
// when FATHOM_WITH_CUDA found the headers and they are those of CUDA 12.0 or later (CUPTI API version >= 19);
// otherwise the tracer compiles to its "built without" form.

#include <fathom_features.h>

#if FATHOM_WITH_CUDA
#include <cuda.h>
#include <cupti.h>
#endif

#if FATHOM_WITH_CUDA && CUPTI_API_VERSION >= 19
#define FATHOM_CUPTI_TRACING 1

namespace fathom::profile::detail {

// The record struct of each kind as the headers' own CUDA version defines it. A CUPTI library returns the newest
// version it knows; newer versions only append fields, so the decoder reads a prefix that is the same in all of them
// (cupti_record_decoder.cpp checks the offsets against the older structs with static_asserts).
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
using MemsetRecord = CUpti_ActivityMemset4;
using SyncRecord = CUpti_ActivitySynchronization2;
using OverheadRecord = CUpti_ActivityOverhead3;
#else  // CUDA 12.x headers: the versions Kineto reads there
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy5;
using MemsetRecord = CUpti_ActivityMemset4;
using SyncRecord = CUpti_ActivitySynchronization;
using OverheadRecord = CUpti_ActivityOverhead;
#endif
using ApiRecord = CUpti_ActivityAPI;
using ExternalCorrelationRecord = CUpti_ActivityExternalCorrelation;

}  // namespace fathom::profile::detail

#else
#define FATHOM_CUPTI_TRACING 0
#endif
