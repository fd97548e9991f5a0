/*
 * report/atc_command.c - the ATC command that converts an ONNX model for a chip, as the
 * reports suggest it (see report_internal.h), built from what the result holds: the model's
 * name and inputs, the chip's part asked for and its family's parts (docs/reports.md, "The
 * next commands").
 */
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "scan/result_internal.h"
#include "report_internal.h"

/* The placeholder --soc_version takes when only a family was asked for. */
#define OM_SOC_PLACEHOLDER "$SOC_VERSION"

static int dim_dynamic(const ir_dim *d) { return d->param != NULL || d->value < 0; }

/*
 * Which profile option fits the dynamic dimensions (ATC's rules, docs/reports.md): every
 * one the batch (dim 0) -> --dynamic_batch_size; exactly H and W (dims 2, 3) of one rank-4
 * input -> --dynamic_image_size; anything else -> --dynamic_dims with --input_format=ND.
 */
static const char *profile_flag(const opmap_result *r, unsigned *dynamic)
{
    size_t i, inputs = 0;
    int batch_only = 1, image = 1;
    *dynamic = 0;
    for (i = 0; i < r->n_inputs; i++) {
        const ir_type *t = &r->inputs[i].type;
        unsigned here = 0;
        int32_t d;
        for (d = 0; d < t->rank; d++)
            if (dim_dynamic(&t->dims[d])) {
                here++;
                batch_only &= d == 0;
            }
        if (!here)
            continue;
        inputs++;
        image &= t->rank == 4 && here == 2 && dim_dynamic(&t->dims[2]) && dim_dynamic(&t->dims[3]);
        *dynamic += here;
    }
    if (!*dynamic)
        return NULL;
    if (batch_only)
        return "--dynamic_batch_size";
    if (image && inputs == 1)
        return "--dynamic_image_size";
    return "--dynamic_dims";
}

/* "name:1,3,224,224;other:-1,8": each input with -1 where a dimension is dynamic. */
static void input_shape(const opmap_result *r, char *buf, size_t size)
{
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < r->n_inputs; i++) {
        const ir_value *v = &r->inputs[i];
        int32_t d;
        om_appendf(buf, size, &used, "%s%s:", i ? ";" : "", v->name);
        for (d = 0; d < v->type.rank; d++)
            om_appendf(buf, size, &used, "%s%lld", d ? "," : "",
                       (long long)(dim_dynamic(&v->type.dims[d]) ? -1 : v->type.dims[d].value));
    }
}

void om_atc_build(const opmap_result *r, size_t chip, om_atc *a)
{
    const char *name = strrchr(r->model_name, '/');
    const om_chip *c = r->chip_info && chip < r->n_chips ? &r->chip_info[chip] : NULL;
    size_t len;
    memset(a, 0, sizeof(*a));
    a->model = r->model_name;
    name = name ? name + 1 : r->model_name;
    len = strlen(name);
    if (len > 5 && strcmp(name + len - 5, ".onnx") == 0)
        len -= 5;
    if (len >= sizeof(a->output))
        len = sizeof(a->output) - 1;
    memcpy(a->output, name, len);
    a->output[len] = '\0';
    a->part = c ? c->part : NULL;
    a->parts = c ? c->parts : NULL;
    a->n_parts = c ? c->n_parts : 0;
    a->family = chip < r->n_chips ? r->chips[chip] : "";
    input_shape(r, a->input_shape, sizeof(a->input_shape));
    a->profile_flag = profile_flag(r, &a->dynamic);
}

/*
 * s as one shell word for the command a reader pastes: bare when it has only characters no
 * shell treats specially (`quote` 0; `quote` '"': in double quotes, which the input shapes'
 * ';' needs), else in single quotes, each ' as '\''. A model path or input name with a
 * space, '$', '`' or '"' then stays one argument and runs nothing.
 */
static void shell_word(char *buf, size_t size, size_t *used, const char *s, char quote)
{
    static const char bare[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                               "_./:,+=@%-";
    const char *p;
    if (!quote && s[0] && s[strspn(s, bare)] == '\0') {
        om_appendf(buf, size, used, "%s", s);
        return;
    }
    if (quote == '"' && !strpbrk(s, "\"$`\\!")) {
        om_appendf(buf, size, used, "\"%s\"", s);
        return;
    }
    om_appendf(buf, size, used, "'");
    for (p = s; *p; p++)
        om_appendf(buf, size, used, *p == '\'' ? "'\\''" : "%c", *p);
    om_appendf(buf, size, used, "'");
}

void om_atc_command(const opmap_result *r, size_t chip, char *buf, size_t size)
{
    om_atc a;
    size_t used = 0;
    om_atc_build(r, chip, &a);
    buf[0] = '\0';
    om_appendf(buf, size, &used, "atc --model=");
    shell_word(buf, size, &used, a.model, 0);
    om_appendf(buf, size, &used, " --framework=5 --output=");
    shell_word(buf, size, &used, a.output, 0);
    om_appendf(buf, size, &used, " --soc_version=%s", a.part ? a.part : OM_SOC_PLACEHOLDER);
    if (r->n_inputs) {
        om_appendf(buf, size, &used, " --input_shape=");
        shell_word(buf, size, &used, a.input_shape, '"');
    }
}

void om_atc_notes(const opmap_result *r, size_t chip, char *buf, size_t size)
{
    om_atc a;
    size_t used = 0, i;
    om_atc_build(r, chip, &a);
    buf[0] = '\0';
    if (!a.part) {
        om_appendf(buf, size, &used, "SOC_VERSION: your %s part", a.family);
        for (i = 0; i < a.n_parts; i++)
            om_appendf(buf, size, &used, "%s%s", i ? ", " : " (one of ", a.parts[i]);
        om_appendf(buf, size, &used, "%s; npu-smi info shows it as the Name column, with "
                                     "Ascend before it", a.n_parts ? ")" : "");
    }
    /* Ascend's ModelZoo recipes build one OM per batch with the size in --input_shape
     * (tests/truth/check_atc.py), so that is said first, then ATC's profile option */
    if (a.dynamic)
        om_appendf(buf, size, &used, "%s%u dynamic dimension%s (-1): built as a dynamic shape;"
                   " for one OM per shape write the size in place of -1, as Ascend's ModelZoo"
                   " recipes do per batch; for fixed profiles add %s=\"...\"%s (2 to 100"
                   " profiles)",
                   used ? ". " : "", a.dynamic, a.dynamic == 1 ? "" : "s", a.profile_flag,
                   strcmp(a.profile_flag, "--dynamic_dims") == 0 ? " --input_format=ND" : "");
    /* a shape the model does not give is written "name:", as a scalar would be: say so */
    for (i = 0; i < r->n_inputs; i++)
        if (r->inputs[i].type.rank < 0)
            om_appendf(buf, size, &used, "%sinput %.100s: the model gives no shape; write it "
                       "after \"%.100s:\" in --input_shape", used ? ". " : "",
                       r->inputs[i].name, r->inputs[i].name);
}
