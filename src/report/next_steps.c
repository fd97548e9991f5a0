/*
 * report/next_steps.c - what to do next, computed from the result alone (so a report
 * rebuilt from JSON says the same): an operator's next step when the table gives no hint,
 * and the torch_npu migration commands of a TorchScript or torch.export model
 * (docs/reports.md, "The next commands").
 */
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "scan/result_internal.h"
#include "report_internal.h"

const char *om_next_step(const opmap_op *op, char *buf, size_t size)
{
    size_t used = 0;
    const om_reason *why = NULL;
    size_t i;
    buf[0] = '\0';
    if (op->hint[0] || op->status < OPMAP_OP_PARTIAL)
        return op->hint;
    for (i = 0; i < op->n_reasons && !why; i++)
        if (op->reasons[i].status >= OPMAP_OP_PARTIAL)
            why = &op->reasons[i];
    if (op->status == OPMAP_OP_UNMAPPED)
        om_appendf(buf, size, &used, "Not in the table: look %s::%s up in the operator list of "
                   "your CANN version; if it is missing, express it with operators the table "
                   "maps, or write a custom operator (Ascend C)", op->domain, op->name);
    else if (why && why->actual && why->actual[0])
        om_appendf(buf, size, &used, "Change %s at %s: %s", why->actual,
                   why->example ? why->example : "its nodes", why->message);
    else if (why)
        om_appendf(buf, size, &used, "Check %s against this limit: %s", why->example ?
                   why->example : op->name, why->message);
    else if (op->status == OPMAP_OP_REWRITE)
        om_appendf(buf, size, &used, "Replace %s::%s: Ascend has no implementation; rewrite it "
                   "with operators this report marks full, or write a custom operator (Ascend C)",
                   op->domain, op->name);
    else
        om_appendf(buf, size, &used, "Run %s on the chip (as %s) with the model's real dtypes "
                   "and attributes, and compare its output with the CPU's", op->name,
                   om_becomes(op));
    return buf;
}

size_t om_torch_npu_step_count(const opmap_result *r)
{
    return om_format_has(r->format, OPMAP_FORMAT_TRAIT_ATEN) ? 4 : 0;
}

/* s as a Python string literal, "..." with \\, \" and control bytes escaped, so the step
 * pastes as the code it says whatever the file is called; cut short (still closed) when
 * it does not fit. */
static const char *py_string(const char *s, char *lit, size_t size)
{
    size_t n = 0;
    lit[n++] = '"';
    for (; *s && n + 6 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            lit[n++] = '\\';
            lit[n++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            n += (size_t)snprintf(lit + n, size - n, "\\x%02x", c);
        } else {
            lit[n++] = (char)c;
        }
    }
    lit[n++] = '"';
    lit[n] = '\0';
    return lit;
}

void om_torch_npu_step(const opmap_result *r, size_t i, char *buf, size_t size)
{
    const om_format *f = om_format_of(r->format);
    char lit[1024];
    size_t used = 0;
    buf[0] = '\0';
    if (i == 0)
        om_appendf(buf, size, &used, "pip install torch-npu  # the release built for your torch"
                   "%s%s", r->torch_npu[0] ? "; the table speaks for torch_npu " : "",
                   r->torch_npu);
    else if (i == 1)
        om_appendf(buf, size, &used, "import torch; import torch_npu");
    else if (i == 2 && f->npu_load_after) /* the format's loader, on the model's file */
        om_appendf(buf, size, &used, "%s%s%s", f->npu_load,
                   py_string(r->model_name, lit, sizeof(lit)), f->npu_load_after);
    else if (i == 2)
        om_appendf(buf, size, &used, "%s", f->npu_load);
    else if (i == 3)
        om_appendf(buf, size, &used, "or, in the code that builds it: from torch_npu.contrib "
                   "import transfer_to_npu  # routes its cuda calls to the NPU");
}
