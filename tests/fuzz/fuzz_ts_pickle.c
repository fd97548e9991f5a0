/*
 * tests/fuzz/fuzz_ts_pickle.c - the pickles of a TorchScript archive: the input becomes
 * code/__torch__.py.debug_pkl (interpreted in full: source ranges of the code) and, on
 * one input in two, data.pkl as well (run as torch's unpickler runs it, for the root
 * module's class), of a well-formed archive whose code is valid; the archive goes through
 * the public API.
 *
 * Invariants: those of fuzz_onnx.c; a pickle is data, never a program: whatever it says,
 * the result is a model (debug records are optional) or one clean error naming the entry.
 */
#define FZ_NO_ENTRY_POINT
#include "fuzz_onnx.c"
#include "fuzz_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char code[] =
        "class M(Module):\n"
        "  __parameters__ = []\n"
        "  __buffers__ = []\n"
        "  training : bool\n"
        "  def forward(self: __torch__.M,\n"
        "    x: Tensor) -> Tensor:\n"
        "    y = torch.relu(x)\n"
        "    return torch.add(y, x)\n";
    static const unsigned char data_pkl[] = "\x80\x02" "c__torch__\nM\n)\x81}b.";
    fz_zip z = { NULL, 0, 0, { 0 }, 0, 0, 0 };
    int as_data = size && (data[size - 1] & 1);
    fz_zip_add(&z, "archive/version", (const unsigned char *)"3\n", 2);
    if (as_data)
        fz_zip_add(&z, "archive/data.pkl", data, size);
    else
        fz_zip_add(&z, "archive/data.pkl", data_pkl, sizeof(data_pkl) - 1);
    fz_zip_add(&z, "archive/code/__torch__.py", (const unsigned char *)code, sizeof(code) - 1);
    fz_zip_add(&z, "archive/code/__torch__.py.debug_pkl", data, size);
    if (fz_zip_finish(&z) == 0)
        fz_model_input(z.data, z.len, 0);
    free(z.data);
    return 0;
}
