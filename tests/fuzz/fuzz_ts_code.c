/*
 * tests/fuzz/fuzz_ts_code.c - TorchScript code text (the Python torch.jit.save prints under
 * code/): the input becomes code/__torch__.py of a well-formed archive (fuzz_zip.h) and
 * goes through the public API, so lexer, parser, type resolution, graph building, inlining
 * and the optimizer see fuzzed code while the zip around it stays valid. data.pkl names the
 * first class the input defines (`class X` at the start of a line; M when there is none)
 * as the root module, as torch.jit.save would.
 *
 * Invariants: those of fuzz_onnx.c (errors: documented status, one clean line naming the
 * file; a model that opens scans; reports check out; everything freed); and an error in
 * the code names the entry, with a line and column inside the text.
 */
#define FZ_NO_ENTRY_POINT
#include "fuzz_onnx.c"
#include "fuzz_zip.h"

/* data.pkl for an object of __torch__.<first class of the code>. */
static size_t root_pkl(const uint8_t *code, size_t size, unsigned char *out, size_t cap)
{
    static const char head[] = "\x80\x02" "c__torch__\n", tail[] = "\n)\x81}b.";
    const uint8_t *name = (const uint8_t *)"M";
    size_t i, n = 1, k = 0;
    for (i = 0; i + 6 < size; i++)
        if ((i == 0 || code[i - 1] == '\n') && memcmp(code + i, "class ", 6) == 0) {
            size_t j = i + 6;
            while (j < size && j - i - 6 < 200 && (code[j] == '_' || (code[j] >= '0' &&
                   code[j] <= '9') || ((code[j] | 0x20) >= 'a' && (code[j] | 0x20) <= 'z')))
                j++;
            if (j > i + 6) {
                name = code + i + 6;
                n = j - i - 6;
            }
            break;
        }
    if (sizeof(head) - 1 + n + sizeof(tail) - 1 > cap)
        return 0;
    memcpy(out + k, head, sizeof(head) - 1);
    k += sizeof(head) - 1;
    memcpy(out + k, name, n);
    k += n;
    memcpy(out + k, tail, sizeof(tail) - 1);
    return k + sizeof(tail) - 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned char version[] = "3\n";
    unsigned char pkl[256];
    fz_zip z = { NULL, 0, 0, { 0 }, 0, 0, 0 };
    fz_zip_add(&z, "archive/version", version, 2);
    fz_zip_add(&z, "archive/data.pkl", pkl, root_pkl(data, size, pkl, sizeof(pkl)));
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
