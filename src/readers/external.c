/*
 * readers/external.c - does each external-data side file exist, and is it long enough?
 *
 * Only stat() is used: the weights are never read. Locations are resolved against the
 * model file's directory, as ONNX specifies; an absolute location or one that climbs out
 * with ".." is not followed (a model from elsewhere must not make opmap probe the machine)
 * and is reported instead.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "reader.h"

static int escapes(const char *loc)
{
    const char *p = loc;
    if (loc[0] == '/' || loc[0] == '\\')
        return 1;
    while ((p = strstr(p, "..")) != NULL) {
        int start = p == loc || p[-1] == '/' || p[-1] == '\\';
        int end = p[2] == '\0' || p[2] == '/' || p[2] == '\\';
        if (start && end)
            return 1;
        p += 2;
    }
    return 0;
}

void om_check_external(ir_model *m, const char *model_path)
{
    const char *slash = strrchr(model_path, '/');
    int dir_len = slash ? (int)(slash - model_path) : -1;
    size_t i;
    for (i = 0; i < m->n_external; i++) {
        ir_tensor *t = &m->external[i];
        char path[4096];
        struct stat st;
        uint64_t need;
        if (!t->ext_location || !t->ext_location[0] || escapes(t->ext_location)) {
            t->ext_check = IR_EXT_OUTSIDE;
            continue;
        }
        if (dir_len >= 0)
            snprintf(path, sizeof(path), "%.*s/%s", dir_len, model_path, t->ext_location);
        else
            snprintf(path, sizeof(path), "%s", t->ext_location);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            t->ext_check = IR_EXT_MISSING;
            continue;
        }
        need = t->ext_offset + (t->has_ext_length ? t->ext_length : 0);
        t->ext_check = need < t->ext_offset || (uint64_t)st.st_size < need ? IR_EXT_SHORT
                                                                            : IR_EXT_OK;
    }
}
