/*
 * tests/fuzz/fuzz_ts_archive.c - TorchScript archive bytes (torch.jit.save zips) through the
 * public API. The harness is fuzz_onnx.c's: opmap_model_open_memory detects the format by
 * content, so the zip records (end records, zip64, names), the entry caps, data.pkl's root, the
 * code and the .debug_pkl pickles are all reached; this target differs in its seeds (the
 * TorchScript fixtures and the hostile archives) and its dictionary. Invariants: those of
 * fuzz_onnx.c.
 */
#include "fuzz_onnx.c"
