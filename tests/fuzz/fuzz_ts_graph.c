/*
 * tests/fuzz/fuzz_ts_graph.c - printed TorchScript graphs (the text str(module.graph)
 * prints) through the public API. The harness is fuzz_onnx.c's (formats are detected by
 * content); this target differs in its seeds (the fixtures' *.graph.txt) and dictionary.
 * Invariants: those of fuzz_onnx.c.
 */
#include "fuzz_onnx.c"
