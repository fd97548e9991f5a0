/*
 * report/atc_command.c - the ATC command that converts an ONNX model for a chip, as the
 * HTML report suggests it (see report_internal.h).
 */
#include <stdio.h>
#include <string.h>

#include "scan/result_internal.h"
#include "report_internal.h"

/*
 * ATC's --soc_version names the exact part (Ascend910B1..B4, Ascend310P3, ...); opmap's
 * chip ids name families, so the command spells the family and docs/reports.md says to
 * pick the exact part (npu-smi info shows it).
 */
static void soc_version(const char *chip, char *buf, size_t size)
{
    size_t i = 0;
    if (strncmp(chip, "ascend", 6) == 0) {
        snprintf(buf, size, "Ascend%s", chip + 6);
        for (i = 6; buf[i]; i++)
            if (buf[i] >= 'a' && buf[i] <= 'z')
                buf[i] = (char)(buf[i] - 'a' + 'A');
    } else {
        snprintf(buf, size, "%s", chip);
    }
}

void om_atc_command(const opmap_result *r, const char *chip, char *buf, size_t size)
{
    char soc[64], base[256];
    const char *name = strrchr(r->model_name, '/');
    size_t used, i, len;
    soc_version(chip, soc, sizeof(soc));
    name = name ? name + 1 : r->model_name;
    len = strlen(name);
    if (len > 5 && strcmp(name + len - 5, ".onnx") == 0)
        len -= 5;
    if (len >= sizeof(base))
        len = sizeof(base) - 1;
    memcpy(base, name, len);
    base[len] = '\0';
    used = (size_t)snprintf(buf, size, "atc --model=%s --framework=5 --output=%s --soc_version=%s",
                            r->model_name, base, soc);
    if (r->n_inputs && used < size) {
        used += (size_t)snprintf(buf + used, size - used, " --input_shape=\"");
        for (i = 0; i < r->n_inputs && used < size; i++) {
            const ir_value *v = &r->inputs[i];
            int32_t d;
            used += (size_t)snprintf(buf + used, size - used, "%s%s:", i ? ";" : "", v->name);
            for (d = 0; d < v->type.rank && used < size; d++)
                used += (size_t)snprintf(buf + used, size - used, "%s%lld", d ? "," : "",
                                         (long long)(v->type.dims[d].param ||
                                                             v->type.dims[d].value < 0
                                                         ? -1 : v->type.dims[d].value));
        }
        if (used < size)
            snprintf(buf + used, size - used, "\"");
    }
}
