/*
 * tests/fuzz/fuzz_ts_code.c - TorchScript code text (the Python torch.jit.save prints under
 * code/): the input becomes code/__torch__.py of a well-formed archive (fuzz_zip.h) and
 * goes through the public API, so lexer, parser, type resolution, graph building, inlining
 * and the optimizer see fuzzed code while the zip around it stays valid.
 *
 * Invariants: those of fuzz_onnx.c (errors: documented status, one clean line naming the
 * file; a model that opens scans; reports check out; everything freed); and an error in
 * the code names the entry, with a line and column inside the text.
 */
#define FZ_NO_ENTRY_POINT
#include "fuzz_onnx.c"
#include "fuzz_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned char version[] = "3\n";
    fz_zip z = { NULL, 0, 0, { 0 }, 0, 0, 0 };
    fz_zip_add(&z, "archive/version", version, 2);
    fz_zip_add(&z, "archive/code/__torch__.py", data, size);
    if (fz_zip_finish(&z) == 0) {
        fz_model_input(z.data, z.len, 0);
        if (fz_open_rc != OPMAP_OK && strstr(fz_open_err.source, ":archive/code/__torch__.py")) {
            uint32_t lines = 1;
            size_t i;
            for (i = 0; i < size; i++)
                lines += data[i] == '\n' ||
                         (data[i] == '\r' && (i + 1 == size || data[i + 1] != '\n'));
            FZ_CHECK(fz_open_err.line >= 1 && fz_open_err.line <= lines + 1,
                     "an error in the code at line %u of %u: %s", fz_open_err.line, lines,
                     fz_open_err.message);
        }
    }
    free(z.data);
    return 0;
}
