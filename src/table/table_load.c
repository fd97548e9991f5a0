/*
 * table/table_load.c - the YAML tree -> table rows, checked against schema 1
 * (docs/table-format.md).
 *
 * Strict by design: an unknown key, a wrong type, an unknown status/flag/SoC/dtype, a
 * duplicate row or a dangling source id is an error naming file:line:column. A table that
 * loads is a table every later stage can trust without checking again.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/hash.h"
#include "ir/ir.h"
#include "npu_version.h"
#include "table_internal.h"
#include "core/yaml_read.h"
#include "core/yaml_tree.h"

#define TABLE_SCHEMA 1

/* The loader's state: the YAML reader and the table being filled. */
typedef struct ld {
    yr y;
    opmap_table *t;
    const om_source **by_id;  /* the sources sorted by id, for look-ups in O(log n) */
} ld;

static const char *const flag_names[OPMAP_FLAG_COUNT] = {
    "precision", "nondeterministic", "rng", "performance", "dynamic_shape", "inf_nan",
    "deprecated"
};

static const char *const default_socs[] = { "ascend910b", "ascend910_93", "ascend310p",
                                            "ascend950" };

unsigned om_flag_from_name(const char *name)
{
    unsigned i;
    for (i = 0; i < OPMAP_FLAG_COUNT; i++)
        if (strcmp(flag_names[i], name) == 0)
            return 1u << i;
    return 0;
}

const char *opmap_flag_name(unsigned index)
{
    return index < OPMAP_FLAG_COUNT ? flag_names[index] : NULL;
}

static int parse_status(ld *l, const yt_node *n, int allow_unknown, int allow_structural,
                        int *out)
{
    static const char *const names[] = { "structural", "full", "partial", "rewrite" };
    const char *s;
    int i, rc = yr_str(&l->y, n, "status", &s);
    if (rc)
        return rc;
    for (i = allow_structural ? 0 : 1; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return OPMAP_OK;
        }
    if (allow_unknown && strcmp(s, "unknown") == 0) {
        *out = OM_SOC_UNKNOWN;
        return OPMAP_OK;
    }
    return yr_bad(&l->y, n, "unknown status '%s' (expected full, partial, rewrite%s)", s,
               allow_unknown ? ", unknown" : allow_structural ? ", structural" : "");
}

static int parse_flags(ld *l, const yt_node *n, unsigned *out)
{
    size_t i;
    int rc = yr_kind(&l->y, n, YT_SEQ, "flags");
    if (rc)
        return rc;
    for (i = 0; i < n->n; i++) {
        const char *s;
        unsigned bit;
        if ((rc = yr_str(&l->y, n->items[i], "flag", &s)))
            return rc;
        if (!(bit = om_flag_from_name(s)))
            return yr_bad(&l->y, n->items[i],
                       "unknown flag '%s' (expected precision, nondeterministic, rng, "
                       "performance, dynamic_shape, inf_nan, deprecated)", s);
        *out |= bit;
    }
    return OPMAP_OK;
}

static int parse_dtypes(ld *l, const yt_node *n, uint32_t *out)
{
    size_t i;
    int rc = yr_kind(&l->y, n, YT_SEQ, "dtypes");
    if (rc)
        return rc;
    for (i = 0; i < n->n; i++) {
        const char *s;
        int dt;
        if ((rc = yr_str(&l->y, n->items[i], "dtype", &s)))
            return rc;
        if (!(dt = ir_dtype_from_name(s)))
            return yr_bad(&l->y, n->items[i], "unknown dtype '%s' (see docs/table-format.md)", s);
        *out |= 1u << dt;
    }
    return OPMAP_OK;
}

static int soc_index(ld *l, const yt_node *n, const char *name, uint32_t *out)
{
    size_t i;
    for (i = 0; i < l->t->n_socs; i++)
        if (strcmp(l->t->socs[i], name) == 0) {
            *out = (uint32_t)i;
            return OPMAP_OK;
        }
    return yr_bad(&l->y, n, "unknown SoC '%s' (not in about.socs)", name);
}

/*
 * Source ids are checked through l->by_id (sorted), not by scanning every source for every
 * id: a hostile table with n sources and n rows naming them would take n^2 comparisons
 * (100,000 of each: about a minute).
 */
static int by_id_cmp(const void *a, const void *b)
{
    const om_source *x = *(const om_source *const *)a, *y = *(const om_source *const *)b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x < y ? -1 : x > y);  /* equal ids: in file order */
}

static int id_key_cmp(const void *key, const void *elem)
{
    return strcmp((const char *)key, (*(const om_source *const *)elem)->id);
}

static int check_sources(ld *l, const yt_node *n, const char **ids, size_t count)
{
    size_t i;
    for (i = 0; i < count; i++)
        if (!l->by_id || !bsearch(ids[i], l->by_id, l->t->n_sources, sizeof(*l->by_id),
                                  id_key_cmp))
            return yr_bad(&l->y, n->kind == YT_SEQ && i < n->n ? n->items[i] : n,
                       "unknown source id '%s' (not in sources:)", ids[i]);
    return OPMAP_OK;
}

/* ---- evidence ---- */

static const char *const grade_names[OM_GRADE_COUNT] = { "", "practice", "derived", "doc",
                                                         "kernel" };

const char *om_grade_name(int grade)
{
    return grade > 0 && grade < OM_GRADE_COUNT ? grade_names[grade] : "";
}

static int parse_grade(ld *l, const yt_node *n, uint8_t *out)
{
    const char *s;
    int i, rc = yr_str(&l->y, n, "grade", &s);
    if (rc)
        return rc;
    for (i = 1; i < OM_GRADE_COUNT; i++)
        if (strcmp(s, grade_names[i]) == 0) {
            *out = (uint8_t)i;
            return OPMAP_OK;
        }
    return yr_bad(&l->y, n, "unknown grade '%s' (expected kernel, doc, derived, practice)", s);
}

/* The best grade among sources (all known: check_sources ran). */
static uint8_t best_grade(ld *l, const char **ids, size_t n)
{
    uint8_t best = OM_GRADE_NONE;
    size_t i;
    for (i = 0; i < n && l->by_id; i++) {
        const om_source *const *s = bsearch(ids[i], l->by_id, l->t->n_sources, sizeof(*l->by_id),
                                            id_key_cmp);
        if (s && (*s)->grade > best)
            best = (*s)->grade;
    }
    return best;
}

/*
 * `grade` and `sources` of one fact, read from `map` (a fact's own mapping, or the
 * constraint / chip answer they sit in). Without `grade`, the fact takes the best grade of
 * its sources; a stated grade may be lower (an inference drawn from a kernel source is
 * derived) but never higher than every source it cites.
 */
static int parse_evidence_keys(ld *l, const yt_node *map, om_evidence *ev)
{
    const yt_node *g = yt_get(map, "grade"), *s = yt_get(map, "sources");
    uint8_t best;
    int rc;
    if (s && ((rc = yr_str_list(&l->y, s, "sources", &ev->sources, &ev->n_sources)) ||
              (rc = check_sources(l, s, ev->sources, ev->n_sources))))
        return rc;
    best = best_grade(l, ev->sources, ev->n_sources);
    if (!g) {
        ev->grade = best;
        return OPMAP_OK;
    }
    if ((rc = parse_grade(l, g, &ev->grade)))
        return rc;
    if (!ev->n_sources)
        return yr_bad(&l->y, g, "a grade needs the sources it rests on");
    if (ev->grade > best)
        return yr_bad(&l->y, g, "grade %s is higher than any cited source's (%s)",
                      grade_names[ev->grade], best ? grade_names[best] : "none");
    return OPMAP_OK;
}

static int parse_evidence(ld *l, const yt_node *map, om_evidence *ev, const char *what)
{
    static const char *const keys[] = { "grade", "sources", NULL };
    int rc;
    if ((rc = yr_kind(&l->y, map, YT_MAP, what)) || (rc = yr_keys(&l->y, map, keys, what)))
        return rc;
    return parse_evidence_keys(l, map, ev);
}

/* A row's `evidence:`: status, ascend, dtypes and flags.<flag>, each {grade, sources}. */
static int parse_row_evidence(ld *l, const yt_node *map, opmap_row *row)
{
    size_t i;
    int rc;
    if ((rc = yr_kind(&l->y, map, YT_MAP, "evidence")))
        return rc;
    for (i = 0; i < map->n; i++) {
        const yt_node *k = map->items[2 * i], *v = map->items[2 * i + 1];
        om_evidence *ev = NULL;
        unsigned bit = 0;
        if (k->kind != YT_SCALAR || !k->str)
            return yr_bad(&l->y, k, "evidence: keys are plain names");
        if (strcmp(k->str, "status") == 0)
            ev = &row->ev_status;
        else if (strcmp(k->str, "ascend") == 0)
            ev = &row->ev_ascend;
        else if (strcmp(k->str, "dtypes") == 0)
            ev = &row->ev_dtypes;
        else if (strncmp(k->str, "flags.", 6) == 0 && (bit = om_flag_from_name(k->str + 6))) {
            unsigned b = 0;
            while (!(bit & (1u << b)))
                b++;
            if (!(row->flags & bit))
                return yr_bad(&l->y, k, "evidence for flag '%s', which the row does not have",
                              k->str + 6);
            ev = &row->ev_flags[b];
        }
        if (!ev)
            return yr_bad(&l->y, k, "unknown evidence key '%s' (expected status, ascend, dtypes "
                          "or flags.<flag>)", k->str);
        if ((rc = parse_evidence(l, v, ev, "evidence")))
            return rc;
    }
    return OPMAP_OK;
}

/* ---- advice ---- */

static const char *const detector_names[OM_DET_COUNT] = {
    "",
#define OM_DETECTOR(id, name, graphs, matches) name,
#include "detectors.def"
#undef OM_DETECTOR
};

int om_detector_from_name(const char *name)
{
    int i;
    for (i = 1; i < OM_DET_COUNT; i++)
        if (strcmp(detector_names[i], name) == 0)
            return i;
    return 0;
}

const char *om_detector_name(int detector)
{
    return detector > 0 && detector < OM_DET_COUNT ? detector_names[detector] : "";
}

static int parse_advice(ld *l, const yt_node *seq)
{
    static const char *const keys[] = { "id", "detector", "kind", "message", "action", "notes",
                                        "recipes", "grade", "sources", NULL };
    size_t i, j;
    int rc;
    if ((rc = yr_kind(&l->y, seq, YT_SEQ, "advice")))
        return rc;
    if (seq->n > 256)
        return yr_bad(&l->y, seq, "advice: at most 256 entries");
    if (seq->n && !(l->t->advice = om_arena_array(l->y.A, seq->n, sizeof(om_advice_rule))))
        return yr_oom(&l->y);
    l->t->n_advice = seq->n;
    for (i = 0; i < seq->n; i++) {
        const yt_node *e = seq->items[i], *n;
        om_advice_rule *a = &l->t->advice[i];
        const char *det;
        a->line = e->line;
        if ((rc = yr_kind(&l->y, e, YT_MAP, "an advice entry")) ||
            (rc = yr_keys(&l->y, e, keys, "an advice entry")) ||
            (rc = yr_require(&l->y, e, "id", "advice", &n)) || (rc = yr_str(&l->y, n, "id", &a->id)) ||
            (rc = yr_require(&l->y, e, "detector", "advice", &n)) ||
            (rc = yr_str(&l->y, n, "detector", &det)))
            return rc;
        if (!(a->detector = om_detector_from_name(det)))
            return yr_bad(&l->y, n, "unknown detector '%s' (see docs/table-format.md, \"Advice\")", det);
        for (j = 0; j < i; j++)
            if (strcmp(l->t->advice[j].id, a->id) == 0)
                return yr_bad(&l->y, e, "advice id '%s' given twice", a->id);
        if ((rc = yr_require(&l->y, e, "message", "advice", &n)) ||
            (rc = yr_str(&l->y, n, "message", &a->message)) ||
            (rc = yr_require(&l->y, e, "action", "advice", &n)) ||
            (rc = yr_str(&l->y, n, "action", &a->action)))
            return rc;
        if ((n = yt_get(e, "notes")) && (rc = yr_str(&l->y, n, "notes", &a->notes)))
            return rc;
        if ((n = yt_get(e, "kind"))) {
            const char *k;
            if ((rc = yr_str(&l->y, n, "kind", &k)))
                return rc;
            if (strcmp(k, "optional") != 0 && strcmp(k, "required") != 0 &&
                strcmp(k, "custom_op") != 0)
                return yr_bad(&l->y, n, "advice kind '%s': required, optional or custom_op", k);
            a->optional = k[0] == 'o';
            a->custom_op = k[0] == 'c';
        }
        if ((n = yt_get(e, "recipes")) &&
            (rc = yr_str_list(&l->y, n, "recipes", &a->recipes, &a->n_recipes)))
            return rc;
        if ((rc = parse_evidence_keys(l, e, &a->ev)))
            return rc;
        /* advice is new in the table: strict from the start */
        if (!a->ev.n_sources || !a->ev.grade)
            return yr_bad(&l->y, e, "advice '%s' needs sources with a grade", a->id);
    }
    return OPMAP_OK;
}

/* ---- top-level sections ---- */

/* Chip ids are names users type after --soc (comma-separated, "all" for every one) and
 * reports print as keys, headings and columns: a plain identifier keeps all of those simple. */
static int soc_id_ok(const char *s)
{
    size_t n = 0;
    if (strcmp(s, "all") == 0)
        return 0;
    for (; s[n]; n++)
        if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
              (s[n] >= '0' && s[n] <= '9') || s[n] == '_' || s[n] == '-' || s[n] == '.'))
            return 0;
    return n > 0 && n <= 64;
}

static int parse_about(ld *l, const yt_node *about)
{
    static const char *const keys[] = { "name", "version", "onnx_opset_max", "torch_npu",
                                        "cann", "socs", "default_soc", "soc_parts", NULL };
    opmap_table *t = l->t;
    const yt_node *n;
    int rc;
    size_t i;
    if ((rc = yr_kind(&l->y, about, YT_MAP, "about")) || (rc = yr_keys(&l->y, about, keys, "about")))
        return rc;
    if ((n = yt_get(about, "name")) && (rc = yr_str(&l->y, n, "about.name", &t->name)))
        return rc;
    if ((n = yt_get(about, "version")) && (rc = yr_str(&l->y, n, "about.version", &t->version)))
        return rc;
    if ((n = yt_get(about, "torch_npu")) && (rc = yr_str(&l->y, n, "about.torch_npu", &t->torch_npu)))
        return rc;
    if ((n = yt_get(about, "cann")) && (rc = yr_str(&l->y, n, "about.cann", &t->cann)))
        return rc;
    if ((n = yt_get(about, "onnx_opset_max")) &&
        (rc = yr_int(&l->y, n, "about.onnx_opset_max", &t->onnx_opset_max)))
        return rc;
    if ((n = yt_get(about, "socs"))) {
        if ((rc = yr_str_list(&l->y, n, "about.socs", &t->socs, &t->n_socs)))
            return rc;
        if (t->n_socs == 0 || t->n_socs > 64)
            return yr_bad(&l->y, n, "about.socs must list between 1 and 64 chips");
        for (i = 0; i < t->n_socs; i++) {
            size_t j;
            const char *part;
            if (!soc_id_ok(t->socs[i]))
                return yr_bad(&l->y, n->items[i], "chip id '%.64s': use letters, digits, '_', "
                              "'-' and '.' (at most 64), and not 'all'", t->socs[i]);
            /* case aside, as --soc compares them (no parts are read yet) */
            if (om_table_find_soc(t, t->socs[i], strlen(t->socs[i]), &j, &part) && j != i)
                return yr_bad(&l->y, n->items[i], "SoC '%s' listed twice (as '%s'; case "
                              "aside)", t->socs[i], t->socs[j]);
        }
    }
    if ((n = yt_get(about, "default_soc"))) {
        const char *s;
        uint32_t idx = 0;
        if ((rc = yr_str(&l->y, n, "about.default_soc", &s)) || (rc = soc_index(l, n, s, &idx)))
            return rc;
        t->default_soc = (int)idx;
    }
    return OPMAP_OK;
}

/*
 * No part of about.soc_parts may spell a family id or another part, case aside (--soc
 * matches either, so one of the two would be unreachable). Checked once every family's
 * parts are read: om_table_find_soc must find each part as itself.
 */
static int check_soc_parts(ld *l, const yt_node *map)
{
    const opmap_table *t = l->t;
    size_t i, j, fam;
    const char *other;
    for (i = 0; i < map->n; i++) {
        const yt_node *k = map->items[2 * i], *parts = yt_get(map->items[2 * i + 1], "parts");
        uint32_t idx = 0;
        if (soc_index(l, k, k->str, &idx))
            return OPMAP_ETABLE; /* read before: cannot happen */
        for (j = 0; j < t->soc_parts[idx].n_parts; j++) {
            const char *p = t->soc_parts[idx].parts[j];
            if (!om_table_find_soc(t, p, strlen(p), &fam, &other) ||
                (fam == idx && other == p))
                continue;
            if (!other)
                return yr_bad(&l->y, parts->items[j], "part '%s' spells the chip id '%s' "
                              "(case aside: --soc would match the chip)", p, t->socs[fam]);
            return yr_bad(&l->y, parts->items[j], "part '%s' is listed twice (as %s's '%s'; "
                          "case aside: --soc matches either)", p, t->socs[fam], other);
        }
    }
    return OPMAP_OK;
}

/*
 * about.soc_parts: per family of about.socs, {parts: [...], grade, sources}. Read after
 * sources: (the evidence names them). A part is a chip id too, and names one chip only
 * (check_soc_parts).
 */
static int parse_soc_parts(ld *l, const yt_node *map)
{
    static const char *const keys[] = { "parts", "grade", "sources", NULL };
    opmap_table *t = l->t;
    size_t i, j;
    int rc;
    if ((rc = yr_kind(&l->y, map, YT_MAP, "about.soc_parts")))
        return rc;
    if (!(t->soc_parts = om_arena_array(l->y.A, t->n_socs, sizeof(om_soc_parts))))
        return yr_oom(&l->y);
    for (i = 0; i < map->n; i++) {
        const yt_node *k = map->items[2 * i], *e = map->items[2 * i + 1], *n;
        uint32_t idx = 0;
        om_soc_parts *sp;
        if (k->kind != YT_SCALAR || !k->str)
            return yr_bad(&l->y, k, "about.soc_parts: keys are chip ids");
        if ((rc = soc_index(l, k, k->str, &idx)) ||
            (rc = yr_kind(&l->y, e, YT_MAP, "a chip's parts")) ||
            (rc = yr_keys(&l->y, e, keys, "a chip's parts")) ||
            (rc = yr_require(&l->y, e, "sources", "a chip's parts", &n)) ||
            (rc = yr_require(&l->y, e, "parts", "a chip's parts", &n)))
            return rc;
        sp = &t->soc_parts[idx];
        if (sp->n_parts)
            return yr_bad(&l->y, k, "about.soc_parts: '%s' listed twice", k->str);
        if ((rc = yr_str_list(&l->y, n, "parts", &sp->parts, &sp->n_parts)) ||
            (rc = parse_evidence_keys(l, e, &sp->ev)))
            return rc;
        if (!sp->n_parts || sp->n_parts > 64)
            return yr_bad(&l->y, n, "a chip's parts: between 1 and 64");
        for (j = 0; j < sp->n_parts; j++)
            if (!soc_id_ok(sp->parts[j]))
                return yr_bad(&l->y, n->items[j], "part '%.64s': use letters, digits, '_', '-'"
                              " and '.' (at most 64)", sp->parts[j]);
    }
    return check_soc_parts(l, map);
}

static int parse_sources(ld *l, const yt_node *s)
{
    static const char *const keys[] = { "id", "title", "repo", "path", "commit", "license",
                                        "taken", "url", "grade", NULL };
    size_t i, j;
    int rc;
    if ((rc = yr_kind(&l->y, s, YT_SEQ, "sources")))
        return rc;
    if (!(l->t->sources = om_arena_array(l->y.A, s->n ? s->n : 1, sizeof(om_source))))
        return yr_oom(&l->y);
    l->t->n_sources = s->n;
    for (i = 0; i < s->n; i++) {
        const yt_node *e = s->items[i], *n;
        om_source *src = &l->t->sources[i];
        if ((rc = yr_kind(&l->y, e, YT_MAP, "a source")) ||
            (rc = yr_keys(&l->y, e, keys, "a source")) || (rc = yr_require(&l->y, e, "id", "source", &n)) ||
            (rc = yr_str(&l->y, n, "source id", &src->id)))
            return rc;
        src->line = e->line;
#define OPT(key, field) \
    if ((n = yt_get(e, key)) && (rc = yr_str(&l->y, n, "source " key, &src->field))) return rc
        OPT("title", title);
        OPT("repo", repo);
        OPT("path", path);
        OPT("commit", commit);
        OPT("license", license);
        OPT("taken", taken);
        OPT("url", url);
#undef OPT
        if ((n = yt_get(e, "grade")) && (rc = parse_grade(l, n, &src->grade)))
            return rc;
    }
    /* ids sorted once; the first id defined twice (in file order) is the error */
    if (s->n && !(l->by_id = om_arena_array(l->y.A, s->n, sizeof(*l->by_id))))
        return yr_oom(&l->y);
    for (i = 0; i < s->n; i++)
        l->by_id[i] = &l->t->sources[i];
    if (s->n)
        qsort(l->by_id, s->n, sizeof(*l->by_id), by_id_cmp);
    {
        const om_source *dup = NULL, *first = NULL;
        for (i = 0, j = 0; i < s->n; i = j) {
            for (j = i + 1; j < s->n && strcmp(l->by_id[j]->id, l->by_id[i]->id) == 0; j++)
                ;
            if (j - i > 1 && (!dup || l->by_id[i + 1] < dup)) {
                dup = l->by_id[i + 1];
                first = l->by_id[i];
            }
        }
        if (dup)
            return yr_bad(&l->y, s->items[dup - l->t->sources],
                          "source id '%s' defined twice (first at line %" PRIu32 ")", dup->id,
                          first->line);
    }
    return OPMAP_OK;
}

/* ---- constraints ---- */

static int parse_value(ld *l, const yt_node *n, om_value *v)
{
    if (n->kind == YT_SEQ) {
        size_t i;
        int rc;
        v->kind = OM_VAL_LIST;
        v->n = n->n;
        if (n->n && !(v->list = om_arena_array(l->y.A, n->n, sizeof(om_value))))
            return yr_oom(&l->y);
        for (i = 0; i < n->n; i++) {
            if (n->items[i]->kind != YT_SCALAR)
                return yr_bad(&l->y, n->items[i], "list values must be scalars");
            if ((rc = parse_value(l, n->items[i], &v->list[i])))
                return rc;
        }
        return OPMAP_OK;
    }
    if (n->kind != YT_SCALAR)
        return yr_bad(&l->y, n, "a constraint value must be a scalar or a list of scalars");
    if (n->plain && (strcmp(n->str, "true") == 0 || strcmp(n->str, "false") == 0)) {
        v->kind = OM_VAL_BOOL;
        v->num = n->str[0] == 't';
        return OPMAP_OK;
    }
    if (n->plain && n->len) {
        char *end;
        double d;
        errno = 0;
        d = strtod(n->str, &end);
        if (!*end && !errno && isfinite(d)) {
            v->kind = OM_VAL_NUM;
            v->num = d;
            return OPMAP_OK;
        }
    }
    v->kind = OM_VAL_STR;
    v->str = n->str;
    return OPMAP_OK;
}

static const struct { const char *name; uint8_t cmp; } cmps[] = {
    { "eq", OM_CMP_EQ }, { "ne", OM_CMP_NE }, { "lt", OM_CMP_LT }, { "le", OM_CMP_LE },
    { "gt", OM_CMP_GT }, { "ge", OM_CMP_GE }, { "in", OM_CMP_IN }, { "not_in", OM_CMP_NOT_IN }
};

/* Finds the one comparison key in `map`; `ncmp` counts how many there were. */
static int find_cmp(ld *l, const yt_node *map, om_constraint *c, const char *what)
{
    size_t i, found = 0;
    int rc;
    for (i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++) {
        const yt_node *v = yt_get(map, cmps[i].name);
        if (!v)
            continue;
        if (found++)
            return yr_bad(&l->y, map, "%s: give exactly one of eq, ne, lt, le, gt, ge, in, not_in", what);
        c->cmp = cmps[i].cmp;
        if ((rc = parse_value(l, v, &c->value)))
            return rc;
        if ((c->cmp == OM_CMP_IN || c->cmp == OM_CMP_NOT_IN) && c->value.kind != OM_VAL_LIST)
            return yr_bad(&l->y, v, "%s: '%s' needs a list", what, cmps[i].name);
        if (c->cmp >= OM_CMP_LT && c->cmp <= OM_CMP_GE && c->value.kind != OM_VAL_NUM)
            return yr_bad(&l->y, v, "%s: '%s' needs a number", what, cmps[i].name);
    }
    if (!found)
        return yr_bad(&l->y, map, "%s: missing a comparison (eq, ne, lt, le, gt, ge, in, not_in)", what);
    return OPMAP_OK;
}

static int parse_tensor_subject(ld *l, const yt_node *when, om_constraint *c)
{
    const yt_node *in = yt_get(when, "input"), *out = yt_get(when, "output");
    int64_t idx;
    int rc;
    if (!!in == !!out)
        return yr_bad(&l->y, when, "constraint: give exactly one of 'input' and 'output'");
    c->on_output = out != NULL;
    if ((rc = yr_int(&l->y, in ? in : out, "tensor index", &idx)))
        return rc;
    if (idx < 0 || idx > 1000000)
        return yr_bad(&l->y, in ? in : out, "tensor index out of range");
    c->index = (uint32_t)idx;
    return OPMAP_OK;
}

/*
 * {attr: NAME, is: absent}: the node does not carry the attribute; {attr: NAME, count:
 * {<cmp>: N}}: how many values the list attribute holds (an absent one holds none).
 */
static int parse_attr_shape(ld *l, const yt_node *when, const yt_node *name, om_constraint *c)
{
    static const char *const keys[] = { "attr", "is", "count", NULL };
    static const char *const cmp_keys[] = { "eq", "ne", "lt", "le", "gt", "ge", "in",
                                            "not_in", NULL };
    const yt_node *n;
    const char *yes;
    int rc;
    if ((rc = yr_keys(&l->y, when, keys, "an attribute condition")) ||
        (rc = yr_str(&l->y, name, "attr", &c->attr)))
        return rc;
    if (yt_get(when, "is") && yt_get(when, "count"))
        return yr_bad(&l->y, when, "a condition has one subject: is or count, not both");
    if ((n = yt_get(when, "is"))) {
        if ((rc = yr_str(&l->y, n, "is", &yes)))
            return rc;
        if (strcmp(yes, "absent") != 0)
            return yr_bad(&l->y, n, "an attribute's 'is' must be absent, not '%s' (a present "
                          "attribute is compared with eq, ne, ...)", yes);
        c->subject = OM_SUBJ_ATTR;
        c->cmp = OM_CMP_ABSENT;
        return OPMAP_OK;
    }
    n = yt_get(when, "count");
    c->subject = OM_SUBJ_ATTR_COUNT;
    if ((rc = yr_kind(&l->y, n, YT_MAP, "count")) || (rc = yr_keys(&l->y, n, cmp_keys, "count")) ||
        (rc = find_cmp(l, n, c, "count condition")))
        return rc;
    if (c->value.kind != OM_VAL_NUM && c->value.kind != OM_VAL_LIST)
        return yr_bad(&l->y, n, "count: compare with a number");
    return OPMAP_OK;
}

static int parse_when(ld *l, const yt_node *when, om_constraint *c)
{
    const yt_node *n;
    int rc;
    if ((rc = yr_kind(&l->y, when, YT_MAP, "when")))
        return rc;
    if ((n = yt_get(when, "attr")) && (yt_get(when, "is") || yt_get(when, "count")))
        return parse_attr_shape(l, when, n, c);
    if (n) {
        static const char *const keys[] = { "attr", "arg", "default", "eq", "ne", "lt", "le",
                                            "gt", "ge", "in", "not_in", NULL };
        const yt_node *d, *a;
        c->subject = OM_SUBJ_ATTR;
        if ((rc = yr_keys(&l->y, when, keys, "an attribute condition")) ||
            (rc = yr_str(&l->y, n, "attr", &c->attr)) ||
            (rc = find_cmp(l, when, c, "attribute condition")))
            return rc;
        if ((a = yt_get(when, "arg"))) {
            int64_t pos;
            if ((rc = yr_int(&l->y, a, "arg", &pos)))
                return rc;
            if (pos < 0 || pos > 64)
                return yr_bad(&l->y, a, "arg (the argument's position) must be 0 to 64");
            c->arg = (int32_t)pos;
        }
        if ((d = yt_get(when, "default"))) {
            c->has_default = 1;
            if ((rc = parse_value(l, d, &c->def)))
                return rc;
        }
        return OPMAP_OK;
    }
    if ((n = yt_get(when, "is"))) {
        static const char *const keys[] = { "input", "output", "is", NULL };
        const char *s;
        c->subject = OM_SUBJ_CONST;
        if ((rc = yr_keys(&l->y, when, keys, "a constant-input condition")) ||
            (rc = parse_tensor_subject(l, when, c)) || (rc = yr_str(&l->y, n, "is", &s)))
            return rc;
        if (strcmp(s, "constant") == 0)
            c->cmp = OM_CMP_IS_CONST;
        else if (strcmp(s, "not_constant") == 0)
            c->cmp = OM_CMP_NOT_CONST;
        else if (strcmp(s, "not_folded") == 0)
            c->cmp = OM_CMP_NOT_FOLDED;
        else
            return yr_bad(&l->y, n, "'is' must be constant, not_constant or not_folded, not "
                          "'%s'", s);
        return OPMAP_OK;
    }
    if ((n = yt_get(when, "rank")) || (n = yt_get(when, "dtype"))) {
        static const char *const keys[] = { "input", "output", "rank", "dtype", NULL };
        int is_rank = yt_get(when, "rank") != NULL;
        static const char *const cmp_keys[] = { "eq", "ne", "lt", "le", "gt", "ge", "in",
                                                "not_in", NULL };
        if (yt_get(when, "rank") && yt_get(when, "dtype"))
            return yr_bad(&l->y, when, "a condition has one subject: rank or dtype, not both");
        c->subject = is_rank ? OM_SUBJ_RANK : OM_SUBJ_DTYPE;
        if ((rc = yr_keys(&l->y, when, keys, "a tensor condition")) ||
            (rc = parse_tensor_subject(l, when, c)) ||
            (rc = yr_kind(&l->y, n, YT_MAP, is_rank ? "rank" : "dtype")) ||
            (rc = yr_keys(&l->y, n, cmp_keys, is_rank ? "rank" : "dtype")) ||
            (rc = find_cmp(l, n, c, is_rank ? "rank condition" : "dtype condition")))
            return rc;
        if (!is_rank) {
            size_t i;
            if (c->cmp != OM_CMP_IN && c->cmp != OM_CMP_NOT_IN)
                return yr_bad(&l->y, n, "dtype conditions use 'in' or 'not_in'");
            for (i = 0; i < c->value.n; i++)
                if (c->value.list[i].kind != OM_VAL_STR ||
                    !ir_dtype_from_name(c->value.list[i].str))
                    return yr_bad(&l->y, n, "unknown dtype '%s' in condition",
                               c->value.list[i].str ? c->value.list[i].str : "?");
        }
        return OPMAP_OK;
    }
    if ((n = yt_get(when, "value"))) {
        static const char *const keys[] = { "input", "value", "default", NULL };
        static const char *const cmp_keys[] = { "eq", "ne", "lt", "le", "gt", "ge", "in",
                                                "not_in", NULL };
        const yt_node *d;
        c->subject = OM_SUBJ_VALUE;
        if ((d = yt_get(when, "default"))) {
            c->has_default = 1;
            if ((rc = parse_value(l, d, &c->def)))
                return rc;
        }
        if ((rc = yr_keys(&l->y, when, keys, "a constant-value condition")) ||
            (rc = parse_tensor_subject(l, when, c)) ||
            (rc = yr_kind(&l->y, n, YT_MAP, "value")) ||
            (rc = yr_keys(&l->y, n, cmp_keys, "value")) ||
            (rc = find_cmp(l, n, c, "value condition")))
            return rc;
        if (c->on_output)
            return yr_bad(&l->y, when, "a value condition is about a constant input, not an output");
        return OPMAP_OK;
    }
    return yr_bad(&l->y, when, "condition needs a subject: attr, is (constant input), value, "
                  "rank or dtype");
}

/* `when`: one condition, or a list of conditions that must all hold (at most 8). */
static int parse_conditions(ld *l, const yt_node *when, om_constraint *c)
{
    size_t i;
    int rc;
    if (when->kind != YT_SEQ)
        return parse_when(l, when, c);
    if (when->n == 0 || when->n > 8)
        return yr_bad(&l->y, when, "when: give 1 to 8 conditions");
    if ((rc = parse_when(l, when->items[0], c)))
        return rc;
    c->n_also = when->n - 1;
    if (c->n_also && !(c->also = om_arena_array(l->y.A, c->n_also, sizeof(om_constraint))))
        return yr_oom(&l->y);
    for (i = 1; i < when->n; i++) {
        c->also[i - 1].arg = -1;
        c->also[i - 1].then_status = -1;
        if ((rc = parse_when(l, when->items[i], &c->also[i - 1])))
            return rc;
    }
    return OPMAP_OK;
}

static int parse_constraints(ld *l, const yt_node *seq, opmap_row *row)
{
    static const char *const keys[] = { "when", "socs", "then", "flag", "message", "becomes",
                                        "grade", "sources", NULL };
    size_t i;
    int rc;
    if ((rc = yr_kind(&l->y, seq, YT_SEQ, "constraints")))
        return rc;
    row->n_constraints = seq->n;
    if (seq->n && !(row->constraints = om_arena_array(l->y.A, seq->n, sizeof(om_constraint))))
        return yr_oom(&l->y);
    for (i = 0; i < seq->n; i++) {
        const yt_node *e = seq->items[i], *n;
        om_constraint *c = &row->constraints[i];
        c->then_status = -1;
        c->arg = -1;
        c->line = e->line;
        if ((rc = yr_kind(&l->y, e, YT_MAP, "a constraint")) ||
            (rc = yr_keys(&l->y, e, keys, "a constraint")) ||
            (rc = yr_require(&l->y, e, "when", "constraint", &n)) || (rc = parse_conditions(l, n, c)))
            return rc;
        if ((n = yt_get(e, "becomes"))) {
            /* a case of what the operator becomes: no restriction, no reason */
            if ((rc = yr_str(&l->y, n, "becomes", &c->becomes)))
                return rc;
            if (yt_get(e, "then") || yt_get(e, "flag") || yt_get(e, "socs"))
                return yr_bad(&l->y, e, "a 'becomes' case takes no 'then', 'flag' or 'socs'");
            if ((rc = yr_require(&l->y, e, "message", "constraint", &n)) ||
                (rc = yr_str(&l->y, n, "message", &c->message)))
                return rc;
            if ((rc = parse_evidence_keys(l, e, &c->ev)))
                return rc;
            continue;
        }
        if ((rc = yr_require(&l->y, e, "message", "constraint", &n)) ||
            (rc = yr_str(&l->y, n, "message", &c->message)))
            return rc;
        if ((n = yt_get(e, "then"))) {
            int st = 0;
            if (n->kind == YT_SCALAR && strcmp(n->str, "note") == 0) {
                c->note_only = 1;
            } else {
                if ((rc = parse_status(l, n, 0, 0, &st)))
                    return rc;
                if (st != OPMAP_OP_PARTIAL && st != OPMAP_OP_REWRITE)
                    return yr_bad(&l->y, n, "'then' must be partial, rewrite or note");
                c->then_status = st;
            }
        }
        if ((n = yt_get(e, "flag"))) {
            const char *s;
            if ((rc = yr_str(&l->y, n, "flag", &s)))
                return rc;
            if (!(c->flag = om_flag_from_name(s)))
                return yr_bad(&l->y, n, "unknown flag '%s'", s);
        }
        if (c->note_only && c->flag)
            return yr_bad(&l->y, e, "'then: note' changes nothing: it takes no 'flag'");
        if (c->then_status < 0 && !c->flag && !c->note_only)
            return yr_bad(&l->y, e, "a constraint needs 'then', 'flag' or both");
        if ((rc = parse_evidence_keys(l, e, &c->ev)))
            return rc;
        if ((n = yt_get(e, "socs"))) {
            size_t j;
            if ((rc = yr_kind(&l->y, n, YT_SEQ, "constraint socs")))
                return rc;
            for (j = 0; j < n->n; j++) {
                const char *s;
                uint32_t idx = 0;
                if ((rc = yr_str(&l->y, n->items[j], "SoC", &s)) ||
                    (rc = soc_index(l, n->items[j], s, &idx)))
                    return rc;
                c->soc_mask |= 1ull << idx;
            }
        }
    }
    return OPMAP_OK;
}

/* ---- rows ---- */

static int parse_socs(ld *l, const yt_node *map, opmap_row *row)
{
    static const char *const keys[] = { "status", "dtypes", "note", "sources", "grade", NULL };
    size_t i;
    int rc;
    if ((rc = yr_kind(&l->y, map, YT_MAP, "socs")))
        return rc;
    row->n_socs = map->n;
    if (map->n && !(row->socs = om_arena_array(l->y.A, map->n, sizeof(om_soc_answer))))
        return yr_oom(&l->y);
    for (i = 0; i < map->n; i++) {
        const yt_node *k = map->items[2 * i], *e = map->items[2 * i + 1], *n;
        om_soc_answer *a = &row->socs[i];
        if (k->kind != YT_SCALAR || !k->str)
            return yr_bad(&l->y, k, "socs: keys are chip names");
        if ((rc = soc_index(l, k, k->str, &a->soc)) ||
            (rc = yr_kind(&l->y, e, YT_MAP, "a SoC answer")) ||
            (rc = yr_keys(&l->y, e, keys, "a SoC answer")) ||
            (rc = yr_require(&l->y, e, "status", "SoC answer", &n)) ||
            (rc = parse_status(l, n, 1, 0, &a->status)))
            return rc;
        a->name = l->t->socs[a->soc];
        if ((n = yt_get(e, "dtypes")) && (rc = parse_dtypes(l, n, &a->dtypes)))
            return rc;
        if ((n = yt_get(e, "note")) && (rc = yr_str(&l->y, n, "note", &a->note)))
            return rc;
        {
            om_evidence ev;
            memset(&ev, 0, sizeof(ev));
            if ((rc = parse_evidence_keys(l, e, &ev)))
                return rc;
            a->sources = ev.sources;
            a->n_sources = ev.n_sources;
            a->grade = ev.grade;
        }
    }
    return OPMAP_OK;
}

/* `inputs:`: per input, {index, name, dtypes, grade, sources}. */
static int parse_inputs(ld *l, const yt_node *seq, opmap_row *row)
{
    static const char *const keys[] = { "index", "name", "dtypes", "grade", "sources", NULL };
    size_t i, j;
    int rc;
    if ((rc = yr_kind(&l->y, seq, YT_SEQ, "inputs")))
        return rc;
    if (seq->n > 64) /* duplicates are looked for pairwise */
        return yr_bad(&l->y, seq, "inputs: at most 64 entries");
    row->n_inputs = seq->n;
    if (seq->n && !(row->inputs = om_arena_array(l->y.A, seq->n, sizeof(om_input_dtypes))))
        return yr_oom(&l->y);
    for (i = 0; i < seq->n; i++) {
        const yt_node *e = seq->items[i], *n;
        om_input_dtypes *in = &row->inputs[i];
        int64_t idx;
        if ((rc = yr_kind(&l->y, e, YT_MAP, "an input")) ||
            (rc = yr_keys(&l->y, e, keys, "an input")) ||
            (rc = yr_require(&l->y, e, "index", "input", &n)) ||
            (rc = yr_int(&l->y, n, "index", &idx)))
            return rc;
        if (idx < 0 || idx > 1000000)
            return yr_bad(&l->y, n, "input index out of range");
        in->index = (uint32_t)idx;
        for (j = 0; j < i; j++)
            if (row->inputs[j].index == in->index)
                return yr_bad(&l->y, n, "input %u listed twice", in->index);
        if ((n = yt_get(e, "name")) && (rc = yr_str(&l->y, n, "name", &in->name)))
            return rc;
        if ((rc = yr_require(&l->y, e, "dtypes", "input", &n)) ||
            (rc = parse_dtypes(l, n, &in->dtypes)) || (rc = parse_evidence_keys(l, e, &in->ev)))
            return rc;
    }
    return OPMAP_OK;
}

static int parse_ascend(ld *l, const yt_node *map, opmap_row *row)
{
    static const char *const keys[] = { "op", "aclnn", "api", "engine", "ops", "how", NULL };
    static const char *const engines[] = { "ai_core", "ai_cpu", "host", "decomposed",
                                           "cpu_fallback", "dvpp", NULL };
    const yt_node *n;
    int rc;
    if ((rc = yr_kind(&l->y, map, YT_MAP, "ascend")) || (rc = yr_keys(&l->y, map, keys, "ascend")))
        return rc;
    if ((n = yt_get(map, "op")) && (rc = yr_str(&l->y, n, "ascend.op", &row->ascend_op)))
        return rc;
    if ((n = yt_get(map, "aclnn")) && (rc = yr_str(&l->y, n, "ascend.aclnn", &row->aclnn)))
        return rc;
    if ((n = yt_get(map, "api")) && (rc = yr_str(&l->y, n, "ascend.api", &row->api)))
        return rc;
    if ((n = yt_get(map, "ops")) &&
        (rc = yr_str_list(&l->y, n, "ascend.ops", &row->ascend_ops, &row->n_ascend_ops)))
        return rc;
    if ((n = yt_get(map, "how")) && (rc = yr_str(&l->y, n, "ascend.how", &row->ascend_how)))
        return rc;
    if ((n = yt_get(map, "engine"))) {
        const char *const *e;
        if ((rc = yr_str(&l->y, n, "ascend.engine", &row->engine)))
            return rc;
        for (e = engines; *e; e++)
            if (strcmp(*e, row->engine) == 0)
                break;
        if (!*e)
            return yr_bad(&l->y, n, "unknown engine '%s' (expected ai_core, ai_cpu, host, decomposed, "
                             "cpu_fallback, dvpp)", row->engine);
    }
    return OPMAP_OK;
}

static int is_onnx_domain(const char *d)
{
    return strcmp(d, "ai.onnx") == 0 || strcmp(d, "ai.onnx.ml") == 0 ||
           strcmp(d, "ai.onnx.preview.training") == 0;
}

/* A torch_npu version the scan can compare (table/npu_version.h). */
static int check_version(ld *l, const yt_node *v, const char *what)
{
    om_npu_version ver;
    char why[240];
    if (om_npu_version_parse(v->str, &ver, why, sizeof(why)))
        return yr_bad(&l->y, v, "%s: %s", what, why);
    return OPMAP_OK;
}

/* `graph:` (table_graph.c), on ATen rows only: torchair converts ATen operators; its
 * grade and sources are read as any fact's evidence. */
static int parse_graph(ld *l, const yt_node *n, opmap_row *row)
{
    int rc;
    if (strcmp(row->domain, "aten") != 0)
        return yr_bad(&l->y, n, "graph: only ATen rows have a graph-mode answer (torchair "
                                "converts ATen operators), not %s", row->domain);
    if ((rc = om_graph_parse(&l->y, n, &row->graph)))
        return rc;
    return parse_evidence_keys(l, n, &row->graph.ev);
}

/* `backward:` (table_backward.c), on ATen and npu rows: what a training step runs for
 * the gradient; grade and sources read as any fact's evidence. */
static int parse_backward(ld *l, const yt_node *n, opmap_row *row)
{
    int rc;
    if (strcmp(row->domain, "aten") != 0 && strcmp(row->domain, "npu") != 0)
        return yr_bad(&l->y, n, "backward: only ATen and npu rows have a backward answer "
                                "(autograd differentiates PyTorch operators), not %s",
                      row->domain);
    if ((rc = om_backward_parse(&l->y, n, &row->backward)))
        return rc;
    return parse_evidence_keys(l, n, &row->backward.ev);
}

/* pytorch: {since, until}: the pinned PyTorch releases that have an ATen operator */
static int parse_pytorch(ld *l, const yt_node *n, opmap_row *row)
{
    static const char *const keys[] = { "since", "until", NULL };
    const yt_node *v;
    int rc;
    if (strcmp(row->domain, "aten") != 0)
        return yr_bad(&l->y, n, "pytorch: only ATen rows say since when PyTorch has them, not %s",
                      row->domain);
    if ((rc = yr_kind(&l->y, n, YT_MAP, "pytorch")) || (rc = yr_keys(&l->y, n, keys, "pytorch")))
        return rc;
    if ((v = yt_get(n, "since")) && ((rc = yr_str(&l->y, v, "pytorch.since", &row->pt_since)) ||
                                     (rc = check_version(l, v, "pytorch.since"))))
        return rc;
    if ((v = yt_get(n, "until")) && ((rc = yr_str(&l->y, v, "pytorch.until", &row->pt_until)) ||
                                     (rc = check_version(l, v, "pytorch.until"))))
        return rc;
    return OPMAP_OK;
}

static int parse_row(ld *l, const yt_node *e, opmap_row *row)
{
    static const char *const keys[] = { "domain", "op", "since", "overloads", "torch_npu",
                                        "pytorch", "status", "ascend", "socs", "dtypes", "flags",
                                        "constraints", "hint", "notes", "sources", "curated",
                                        "evidence", "inputs", "graph", "backward", NULL };
    const yt_node *n;
    int rc;
    if ((rc = yr_kind(&l->y, e, YT_MAP, "an ops row")) || (rc = yr_keys(&l->y, e, keys, "a row")))
        return rc;
    row->line = e->line;
    if ((rc = yr_require(&l->y, e, "domain", "row", &n)) || (rc = yr_str(&l->y, n, "domain", &row->domain)))
        return rc;
    if (strcmp(row->domain, "") == 0 || strchr(row->domain, ':'))
        return yr_bad(&l->y, n, "domain '%s': use ai.onnx for ONNX's default domain and aten, prim, "
                         "... without '::'", row->domain);
    if ((rc = yr_require(&l->y, e, "op", "row", &n)) || (rc = yr_str(&l->y, n, "op", &row->op)))
        return rc;
    if ((n = yt_get(e, "since"))) {
        if ((rc = yr_int(&l->y, n, "since", &row->since)))
            return rc;
        if (row->since < 1)
            return yr_bad(&l->y, n, "since must be >= 1");
        if (l->t->onnx_opset_max && is_onnx_domain(row->domain) &&
            strcmp(row->domain, "ai.onnx") == 0 && row->since > l->t->onnx_opset_max)
            return yr_bad(&l->y, n, "since %" PRId64 " is newer than about.onnx_opset_max (%" PRId64 ")",
                       row->since, l->t->onnx_opset_max);
    } else if (is_onnx_domain(row->domain)) {
        return yr_bad(&l->y, e, "ONNX rows need 'since' (the operator version)");
    }
    if ((rc = yr_require(&l->y, e, "status", "row", &n)) || (rc = parse_status(l, n, 0, 1, &row->status)))
        return rc;
    if ((n = yt_get(e, "overloads")) &&
        (rc = yr_str_list(&l->y, n, "overloads", &row->overloads, &row->n_overloads)))
        return rc;
    if ((n = yt_get(e, "torch_npu"))) {
        static const char *const tk[] = { "min", "max", NULL };
        const yt_node *v;
        if ((rc = yr_kind(&l->y, n, YT_MAP, "torch_npu")) ||
            (rc = yr_keys(&l->y, n, tk, "torch_npu")))
            return rc;
        if ((v = yt_get(n, "min")) && ((rc = yr_str(&l->y, v, "torch_npu.min", &row->tnpu_min)) ||
                                       (rc = check_version(l, v, "torch_npu.min"))))
            return rc;
        if ((v = yt_get(n, "max")) && ((rc = yr_str(&l->y, v, "torch_npu.max", &row->tnpu_max)) ||
                                       (rc = check_version(l, v, "torch_npu.max"))))
            return rc;
        if (row->tnpu_min && row->tnpu_max) { /* both parse: checked just above */
            om_npu_version lo, hi;
            char why[8];
            om_npu_version_parse(row->tnpu_min, &lo, why, sizeof(why));
            om_npu_version_parse(row->tnpu_max, &hi, why, sizeof(why));
            if (om_npu_line_cmp(&lo, &hi) > 0)
                return yr_bad(&l->y, n, "torch_npu.min %s is newer than torch_npu.max %s: no "
                              "version has the kernel", row->tnpu_min, row->tnpu_max);
        }
    }
    if ((n = yt_get(e, "pytorch")) && (rc = parse_pytorch(l, n, row)))
        return rc;
    if ((n = yt_get(e, "ascend")) && (rc = parse_ascend(l, n, row)))
        return rc;
    if ((n = yt_get(e, "socs")) && (rc = parse_socs(l, n, row)))
        return rc;
    if ((n = yt_get(e, "dtypes")) && (rc = parse_dtypes(l, n, &row->dtypes)))
        return rc;
    if ((n = yt_get(e, "flags")) && (rc = parse_flags(l, n, &row->flags)))
        return rc;
    if ((n = yt_get(e, "constraints")) && (rc = parse_constraints(l, n, row)))
        return rc;
    if ((n = yt_get(e, "inputs")) && (rc = parse_inputs(l, n, row)))
        return rc;
    if ((n = yt_get(e, "hint")) && (rc = yr_str(&l->y, n, "hint", &row->hint)))
        return rc;
    if ((n = yt_get(e, "notes")) && (rc = yr_str(&l->y, n, "notes", &row->notes)))
        return rc;
    if ((n = yt_get(e, "curated")) && (rc = yr_str(&l->y, n, "curated", &row->curated)))
        return rc;
    if ((n = yt_get(e, "sources")) &&
        ((rc = yr_str_list(&l->y, n, "sources", &row->sources, &row->n_sources)) ||
         (rc = check_sources(l, n, row->sources, row->n_sources))))
        return rc;
    if (!row->n_sources && !row->curated)
        return yr_bad(&l->y, e, "row %s %s: give 'sources' or, for our own judgement, 'curated' with "
                         "the reason", row->domain, row->op);
    if ((n = yt_get(e, "evidence")) && (rc = parse_row_evidence(l, n, row)))
        return rc;
    if ((n = yt_get(e, "graph")) && (rc = parse_graph(l, n, row)))
        return rc;
    return (n = yt_get(e, "backward")) ? parse_backward(l, n, row) : OPMAP_OK;
}

/* ---- index: (domain, op) -> rows sorted by since ---- */

static uint64_t key_hash(const char *domain, const char *op)
{
    return om_hash_key(domain, op);
}

static int row_cmp(const void *a, const void *b)
{
    const opmap_row *x = *(const opmap_row *const *)a, *y = *(const opmap_row *const *)b;
    int c = strcmp(x->domain, y->domain);
    if (c)
        return c;
    if ((c = strcmp(x->op, y->op)))
        return c;
    if (x->since != y->since)
        return x->since < y->since ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static om_key_slot *find_slot(const opmap_table *t, const char *domain, const char *op)
{
    size_t j = key_hash(domain, op) & (t->index_cap - 1);
    while (t->index[j].domain) {
        if (strcmp(t->index[j].domain, domain) == 0 && strcmp(t->index[j].op, op) == 0)
            return &t->index[j];
        j = (j + 1) & (t->index_cap - 1);
    }
    return &t->index[j];
}

int om_table_index(opmap_table *t, size_t *row_a, size_t *row_b)
{
    const opmap_row **sorted;
    size_t i, start;
    if (!t->n_rows)
        return OPMAP_OK;
    sorted = om_arena_array(&t->arena, t->n_rows, sizeof(*sorted));
    if (!sorted)
        return OPMAP_ENOMEM;
    for (i = 0; i < t->n_rows; i++)
        sorted[i] = &t->rows[i];
    qsort(sorted, t->n_rows, sizeof(*sorted), row_cmp);
    t->index_cap = 16;
    while (t->index_cap < t->n_rows * 2)
        t->index_cap *= 2;
    if (!(t->index = om_arena_array(&t->arena, t->index_cap, sizeof(om_key_slot))))
        return OPMAP_ENOMEM;
    for (start = 0; start < t->n_rows; start = i) {
        om_key_slot *slot;
        for (i = start + 1; i < t->n_rows && strcmp(sorted[i]->domain, sorted[start]->domain) == 0 &&
                            strcmp(sorted[i]->op, sorted[start]->op) == 0;
             i++) {
            if (sorted[i]->since == sorted[i - 1]->since || !sorted[i - 1]->since) {
                *row_a = (size_t)(sorted[i - 1] - t->rows);
                *row_b = (size_t)(sorted[i] - t->rows);
                return OPMAP_ETABLE;
            }
        }
        slot = find_slot(t, sorted[start]->domain, sorted[start]->op);
        slot->domain = sorted[start]->domain;
        slot->op = sorted[start]->op;
        slot->rows = &sorted[start];
        slot->n = i - start;
    }
    return OPMAP_OK;
}

static int build_index(ld *l, const yt_node *ops)
{
    size_t a = 0, b = 0;
    int rc = om_table_index(l->t, &a, &b);
    const opmap_row *x = &l->t->rows[a], *y = &l->t->rows[b];
    if (rc == OPMAP_ENOMEM)
        return yr_oom(&l->y);
    if (rc != OPMAP_ETABLE)
        return rc;
    if (x->since == y->since)
        return yr_bad(&l->y, ops->items[b], "duplicate row %s %s since %" PRId64
                      " (first at line %" PRIu32 ")", y->domain, y->op, y->since, x->line);
    return yr_bad(&l->y, ops->items[b], "rows for %s %s mix versioned and unversioned keys",
                  y->domain, y->op);
}

const opmap_row *opmap_table_lookup(const opmap_table *t, const char *domain, const char *op,
                                    int64_t version)
{
    const om_key_slot *slot;
    size_t i;
    if (!t || !op || !t->index_cap)
        return NULL;
    if (!domain || !domain[0])
        domain = "ai.onnx";
    slot = find_slot(t, domain, op);
    if (!slot->domain)
        return NULL;
    /* largest since <= version; an unversioned row answers any version */
    for (i = slot->n; i-- > 0;)
        if (slot->rows[i]->since <= version || slot->rows[i]->since == 0)
            return slot->rows[i];
    return NULL;
}

/* ---- entry ---- */

int om_table_parse(opmap_table *t, const unsigned char *data, size_t size,
                   const opmap_limits *lim, opmap_error *err)
{
    static const char *const keys[] = { "schema", "about", "weights", "sources", "ops", "advice",
                                        NULL };
    ld l;
    yt_node *root;
    const yt_node *n, *ops;
    int64_t schema;
    size_t i;
    unsigned weights_set = 0;
    int rc;

    l.t = t;
    l.by_id = NULL;
    l.y.src = t->origin;
    l.y.err = err;
    l.y.A = &t->arena;
    if (size > lim->max_table_bytes)
        return om_fail(err, OPMAP_ELIMIT, t->origin,
                       "table is %zu bytes, over max_table_bytes (%" PRIu64 ")", size,
                       lim->max_table_bytes);
    if ((rc = yt_parse(data, size, t->origin, &t->arena, lim->max_yaml_depth, lim->max_yaml_nodes, &root,
                       err)))
        return rc;
    if ((rc = yr_kind(&l.y, root, YT_MAP, "the table")) ||
        (rc = yr_keys(&l.y, root, keys, "the table")) ||
        (rc = yr_require(&l.y, root, "schema", "table", &n)) ||
        (rc = yr_int(&l.y, n, "schema", &schema)))
        return rc;
    if (schema != TABLE_SCHEMA)
        return yr_bad(&l.y, n, "table schema %" PRId64 " is not supported (this opmap reads schema %d)",
                   schema, TABLE_SCHEMA);

    /* defaults: docs/table-format.md */
    t->name = t->version = t->torch_npu = t->cann = "";
    t->socs = (const char **)default_socs;
    t->n_socs = sizeof(default_socs) / sizeof(default_socs[0]);
    t->weights[OPMAP_OP_FULL] = (opmap_effort){ 100, 100, 100 };
    t->weights[OPMAP_OP_PARTIAL] = (opmap_effort){ 500, 800, 1000 };
    t->weights[OPMAP_OP_REWRITE] = (opmap_effort){ 2000, 2500, 3000 };
    t->weights[OPMAP_OP_UNMAPPED] = (opmap_effort){ 2000, 2500, 3000 };
    t->unpublished = (opmap_effort){ 0, 200, 500 };

    if ((n = yt_get(root, "about")) && (rc = parse_about(&l, n)))
        return rc;
    if ((n = yt_get(root, "weights")) &&
        (rc = yr_weights(&l.y, n, t->weights, &weights_set, &t->unpublished)))
        return rc;
    if ((n = yt_get(root, "sources")) && (rc = parse_sources(&l, n)))
        return rc;
    if ((n = yt_get(root, "about")) && (n = yt_get(n, "soc_parts")) &&
        (rc = parse_soc_parts(&l, n)))
        return rc;
    if ((n = yt_get(root, "advice")) && (rc = parse_advice(&l, n)))
        return rc;
    if ((rc = yr_require(&l.y, root, "ops", "table", &ops)) ||
        (rc = yr_kind(&l.y, ops, YT_SEQ, "ops")))
        return rc;
    t->n_rows = ops->n;
    if (ops->n && !(t->rows = om_arena_array(&t->arena, ops->n, sizeof(opmap_row))))
        return yr_oom(&l.y);
    for (i = 0; i < ops->n; i++)
        if ((rc = parse_row(&l, ops->items[i], &t->rows[i])))
            return rc;
    return build_index(&l, ops);
}
