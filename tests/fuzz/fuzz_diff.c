/*
 * tests/fuzz/fuzz_diff.c - two JSON reports to compare (opmap diff): the input is
 * OLD '\0' NEW. Reports come from other runs, other machines, other versions: hostile too.
 *
 * Invariants: OPMAP_OK or OPMAP_EFORMAT (not an opmap report) or a limit, with err.code set
 * and a clean message; with OPMAP_OK the text and JSON summaries write and the JSON one
 * parses. Everything is freed.
 */
#include "fuzz_common.h"

#include <opmap/policy.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = memchr(data, '\0', size);
    fz_alloc a = { 0 };
    opmap_ctx *ctx;
    opmap_report_format f;
    if (!sep)
        return 0;
    ctx = fz_ctx(&a, 0);
    for (f = OPMAP_REPORT_TEXT; f <= OPMAP_REPORT_JSON; f = (opmap_report_format)(f + 1)) {
        fz_buf b = { NULL, 0, 0 };
        size_t failing = 0;
        opmap_error err;
        int rc = opmap_diff_reports(ctx, (const char *)data, (size_t)(sep - data),
                                    (const char *)sep + 1, size - (size_t)(sep - data) - 1,
                                    NULL, f, fz_buf_write, &b, &failing, &err);
        if (rc != OPMAP_OK) {
            FZ_CHECK(rc == OPMAP_EFORMAT || rc == OPMAP_ELIMIT, "diff returned %d: %s", rc,
                     err.message);
            FZ_CHECK(err.code == rc && err.message[0] && fz_term_safe(err.message),
                     "diff error record: %s", err.message);
        } else if (f == OPMAP_REPORT_JSON) {
            cJSON *doc = cJSON_ParseWithLength(b.data ? b.data : "", b.len);
            FZ_CHECK(doc, "the JSON diff does not parse");
            cJSON_Delete(doc);
        } else {
            fz_check_text(&b);
        }
        free(b.data);
    }
    fz_ctx_free(ctx, &a);
    return 0;
}
