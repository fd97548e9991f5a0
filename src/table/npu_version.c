/*
 * table/npu_version.c - torch_npu versions: parsing and comparing them (npu_version.h).
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "npu_version.h"
#include "table_internal.h"

#define MAX_DIGITS 6

/* Reads 1..MAX_DIGITS decimal digits at *p into *n, advancing *p; 0 when none or too many. */
static int number(const char **p, long *n)
{
    const char *s = *p;
    long v = 0;
    int k = 0;
    while (*s >= '0' && *s <= '9') {
        if (++k > MAX_DIGITS)
            return 0;
        v = v * 10 + (*s - '0');
        s++;
    }
    if (!k)
        return 0;
    *n = v;
    *p = s;
    return 1;
}

static int refuse(const char *s, const char *what, char *why, size_t why_size)
{
    if (why && why_size)
        snprintf(why, why_size,
                 "\"%.40s%s\" is not a torch_npu version (%s): expected MAJOR.MINOR with an "
                 "optional .PATCH and rcN or .postN, e.g. 2.6, 2.1.0.post3, v2.6.0rc1",
                 s, strlen(s) > 40 ? "..." : "", what);
    return -1;
}

int om_npu_version_parse(const char *s, om_npu_version *v, char *why, size_t why_size)
{
    const char *p = s;
    if (!s || !v)
        return refuse("", "none given", why, why_size);
    v->patch = 0;
    v->rc = v->post = -1;
    if (*p == 'v' || *p == 'V')
        p++;
    if (!number(&p, &v->major))
        return refuse(s, "no major version", why, why_size);
    if (*p++ != '.' || !number(&p, &v->minor))
        return refuse(s, "no minor version", why, why_size);
    if (*p == '.' && p[1] >= '0' && p[1] <= '9') {
        p++;
        if (!number(&p, &v->patch))
            return refuse(s, "bad patch number", why, why_size);
    }
    if (strncmp(p, "rc", 2) == 0) {
        p += 2;
        if (!number(&p, &v->rc))
            return refuse(s, "rc without a number", why, why_size);
    } else if (strncmp(p, ".post", 5) == 0) {
        p += 5;
        if (!number(&p, &v->post))
            return refuse(s, ".post without a number", why, why_size);
    }
    if (*p)
        return refuse(s, "unexpected text after the version", why, why_size);
    return 0;
}

static int cmp_long(long a, long b)
{
    return a < b ? -1 : a > b;
}

int om_npu_line_cmp(const om_npu_version *a, const om_npu_version *b)
{
    int c = cmp_long(a->major, b->major);
    return c ? c : cmp_long(a->minor, b->minor);
}

int om_npu_version_cmp(const om_npu_version *a, const om_npu_version *b)
{
    int c = om_npu_line_cmp(a, b);
    if (c || (c = cmp_long(a->patch, b->patch)))
        return c;
    /* rcN < the release (no rc) */
    if (a->rc != b->rc)
        return a->rc < 0 ? 1 : b->rc < 0 ? -1 : cmp_long(a->rc, b->rc);
    return cmp_long(a->post, b->post);
}

int om_npu_range_place(const char *min, const char *max, const om_npu_version *at)
{
    om_npu_version lo, hi;
    if (min && min[0]) {
        if (om_npu_version_parse(min, &lo, NULL, 0))
            return -2;
        if (om_npu_line_cmp(at, &lo) < 0)
            return -1;
    }
    if (max && max[0]) {
        if (om_npu_version_parse(max, &hi, NULL, 0))
            return -2;
        if (om_npu_line_cmp(at, &hi) > 0)
            return 1;
    }
    return 0;
}

int opmap_torch_npu_compare(const char *a, const char *b, int *cmp, opmap_error *err)
{
    om_npu_version va, vb;
    char why[240];
    om_err_clear(err);
    if (!cmp)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_torch_npu_compare: NULL argument");
    *cmp = 0;
    if (om_npu_version_parse(a, &va, why, sizeof(why)) ||
        om_npu_version_parse(b, &vb, why, sizeof(why)))
        return om_fail(err, OPMAP_EINVAL, NULL, "%s", why);
    *cmp = om_npu_version_cmp(&va, &vb);
    return OPMAP_OK;
}

int opmap_row_torch_npu_has(const opmap_row *row, const char *version, int *has,
                            opmap_error *err)
{
    om_npu_version v;
    char why[240];
    om_err_clear(err);
    if (!row || !has)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_row_torch_npu_has: NULL argument");
    *has = 0;
    if (om_npu_version_parse(version, &v, why, sizeof(why)))
        return om_fail(err, OPMAP_EINVAL, NULL, "%s", why);
    *has = om_npu_range_place(row->tnpu_min, row->tnpu_max, &v) == 0;
    return OPMAP_OK;
}
