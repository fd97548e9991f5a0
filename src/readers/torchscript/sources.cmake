# The TorchScript reader's sources, relative to src/ (included by src/CMakeLists.txt);
# README.md says what each folder owns.
set(OPMAP_TS_SOURCES
  readers/torchscript/archive_reader.c
  readers/torchscript/container/debug_pkl.c
  readers/torchscript/container/pickle.c
  readers/torchscript/root_module.c
  readers/torchscript/common/context.c
  readers/torchscript/graph_text/graph_text.c
  readers/torchscript/graph_text/scope.c
  readers/torchscript/jit/build.c
  readers/torchscript/jit/build_call.c
  readers/torchscript/jit/build_expr.c
  readers/torchscript/jit/build_stmt.c
  readers/torchscript/jit/build_types.c
  readers/torchscript/jit/graph.c
  readers/torchscript/jit/kinds.c
  readers/torchscript/lang/lexer.c
  readers/torchscript/lang/parser.c
  readers/torchscript/lang/types.c
  readers/torchscript/lower/lower.c
  readers/torchscript/passes/alias.c
  readers/torchscript/passes/combine_concats.c
  readers/torchscript/passes/constprop.c
  readers/torchscript/passes/dce.c
  readers/torchscript/passes/optimize.c
  readers/torchscript/passes/peephole.c)
