/*
 * readers/torchscript/jit/build.h - one method or function's code -> an optimizer graph,
 * as torch's compiler emits it from the printed code (before any inlining).
 */
#ifndef OM_TS_JIT_BUILD_H
#define OM_TS_JIT_BUILD_H

#include "readers/torchscript/lang/syntax.h"
#include "graph.h"
#include "readers/torchscript/lang/types.h"

/* Builds fn's graph. Errors name the code entry, line and column of the construct. */
int tsj_build_function(ts_ctx *c, tsl_program *prog, tsl_types *ty, tsl_func *fn, tsj_graph **out);

/* The printed name of a qualified name for people: "__torch__." and mangling dropped. */
const char *tsj_display_name(ts_ctx *c, const char *qual);

#endif /* OM_TS_JIT_BUILD_H */
