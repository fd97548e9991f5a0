/*
 * tests/fuzz/fuzz_export.c - the JSON of a torch.export program: the input becomes
 * serialized_exported_program.json of a well-formed .pt2 of the earlier layout
 * (fuzz_zip.h) and goes through the public API, so the bounded JSON reader and the
 * program converter (graphs, nodes, arguments, subgraphs of higher-order ops, tensor
 * metadata, module stacks, stack traces) see fuzzed text while the zip stays valid. Whole
 * .pt2 archives (both layouts, AOTInductor packages) reach the same code through the
 * ts_archive target, whose detection is the library's.
 *
 * Invariants: those of fuzz_onnx.c (errors: documented status, one clean line naming the
 * file; a model that opens scans; reports check out; everything freed); and an error in
 * the JSON names the entry and a byte offset inside the text.
 */
#define FZ_NO_ENTRY_POINT
#include "fuzz_onnx.c"
#include "fuzz_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned char version[] = "8.15";
    fz_zip z = { NULL, 0, 0, { 0 }, 0, 0, 0 };
    fz_zip_add(&z, "serialized_exported_program.json", data, size);
    fz_zip_add(&z, "version", version, 4);
    if (fz_zip_finish(&z) == 0) {
        fz_model_input(z.data, z.len, 0);
        if (fz_open_rc != OPMAP_OK && fz_open_rc != OPMAP_ENOMEM &&
            strstr(fz_open_err.source, ":serialized_exported_program.json"))
            FZ_CHECK(fz_open_err.offset == OPMAP_NO_OFFSET || fz_open_err.offset <= size, "an error at offset %llu of %zu bytes: %s",
                     (unsigned long long)fz_open_err.offset, size, fz_open_err.message);
    }
    free(z.data);
    return 0;
}
