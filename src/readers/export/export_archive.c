/*
 * readers/export/export_archive.c - which zips are torch.export programs, and their graph
 * entries (see export_reader.h).
 *
 * Entry names are resolved as torch resolves them: in a PT2 archive under the folder of the
 * first entry (PyTorchStreamReader, ASCII case ignored, as readers/zip finds them); in the
 * earlier layout at the top of the zip, exactly (Python's zipfile). Only the JSON of the
 * programs and the two marker entries are ever read; data/ is not.
 */
#include "readers/export/export_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/err.h"
#include "readers/zip/zip.h"

#define LEGACY_JSON "serialized_exported_program.json"

typedef struct archive {
    ir_model *m;
    const opmap_limits *lim;
    opmap_error *err;
    const char *src;
    omz_zip *z;
    ir_interner in;
    char prefix[256];       /* the first entry's folder, with its '/'; "" if none */
} archive;

static const char *rel(const archive *a, const char *name)
{
    size_t n = strlen(a->prefix);
    return n && strncasecmp(name, a->prefix, n) == 0 ? name + n : NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static int entry_fail(archive *a, int code, const char *entry, const char *msg)
{
    char source[600];
    om_source_name(source, sizeof(source), a->src, entry);
    return om_fail(a->err, code, source, "%s", msg);
}

/* Reads entry i (a program's JSON) and converts it. */
static int read_program(archive *a, uint64_t i, const char *label)
{
    unsigned char *buf;
    size_t len;
    const char *name = omz_name(a->z, i);
    char source[600];
    int rc = omz_read(a->z, i, a->lim->max_entry_bytes, 0, &buf, &len);
    if (rc)
        return rc;
    snprintf(source, sizeof(source), "%s", name);
    rc = om_export_program(a->m, &a->in, source, label, (const char *)buf, len, a->lim, a->err);
    omz_free(a->z, buf, len);
    return rc;
}

/* `<prefix>archive_format` must hold "pt2", as torch's PT2ArchiveReader requires. */
static int check_format(archive *a, int64_t fmt)
{
    unsigned char *buf;
    size_t len;
    int ok, rc = omz_read(a->z, (uint64_t)fmt, 64, 1, &buf, &len);
    if (rc)
        return rc;
    ok = len == 3 && memcmp(buf, "pt2", 3) == 0;
    omz_free(a->z, buf, len);
    if (!ok)
        return entry_fail(a, OPMAP_EFORMAT, omz_name(a->z, (uint64_t)fmt),
                          "archive_format does not hold \"pt2\" (torch.export.load refuses "
                          "the archive)");
    return OPMAP_OK;
}

/* The programs of a PT2 archive in directory order (the first is "main"), or why there are
 * none: an AOTInductor package, or an archive with neither. */
static int read_pt2(archive *a)
{
    uint64_t i, n = omz_count(a->z), programs = 0, aoti = 0;
    char aoti_model[128] = "", example[160] = "";
    int rc;
    for (i = 0; i < n; i++) {
        const char *r = rel(a, omz_name(a->z, i));
        if (!r)
            continue;
        if (strncasecmp(r, "models/", 7) == 0 && ends_with(r, ".json")) {
            char label[200];
            snprintf(label, sizeof(label), "%.*s", (int)(strlen(r) - 12), r + 7);
            if ((rc = read_program(a, i, programs ? label : "main")))
                return rc;
            programs++;
        } else if (strncasecmp(r, "data/aotinductor/", 17) == 0) {
            const char *model = r + 17, *slash = strchr(model, '/');
            if (!aoti++) {
                snprintf(aoti_model, sizeof(aoti_model), "%.*s",
                         (int)(slash ? slash - model : (ptrdiff_t)strlen(model)), model);
                snprintf(example, sizeof(example), "%.150s", slash ? slash + 1 : model);
            }
        }
    }
    if (programs)
        return OPMAP_OK;
    if (aoti)
        return om_fail(a->err, OPMAP_EUNSUPPORTED, a->src,
                       "an AOTInductor package: %" PRIu64 " compiled artifact(s) for model "
                       "'%s' under data/aotinductor/ (e.g. %s) and no program under models/; "
                       "opmap reads the graph of a torch.export program: save the "
                       "ExportedProgram itself with torch.export.save(ep, path)",
                       aoti, aoti_model, example);
    return om_fail(a->err, OPMAP_EFORMAT, a->src,
                   "a PT2 archive (archive_format \"pt2\") with no program under %smodels/ "
                   "and no AOTInductor artifacts", a->prefix);
}

static int classify(archive *a, int *handled)
{
    const char *first = omz_count(a->z) ? omz_name(a->z, 0) : "";
    const char *slash = strchr(first, '/');
    char want[300];
    int64_t fmt, legacy;
    if (slash && (size_t)(slash - first) + 1 < sizeof(a->prefix))
        snprintf(a->prefix, sizeof(a->prefix), "%.*s", (int)(slash - first) + 1, first);
    snprintf(want, sizeof(want), "%sarchive_format", a->prefix);
    fmt = a->prefix[0] ? omz_find(a->z, want) : -1;
    legacy = omz_find(a->z, LEGACY_JSON);
    if (legacy >= 0 && strcmp(omz_name(a->z, (uint64_t)legacy), LEGACY_JSON) != 0)
        legacy = -1; /* zipfile's look-up is exact */
    if (fmt >= 0) {
        int rc = check_format(a, fmt);
        *handled = 1;
        return rc ? rc : read_pt2(a);
    }
    if (legacy >= 0) {
        *handled = 1;
        return read_program(a, (uint64_t)legacy, "main");
    }
    return OPMAP_OK;
}

int om_export_read(ir_model *m, const unsigned char *data, uint64_t size,
                   const opmap_limits *lim, opmap_error *err, int *handled)
{
    archive a;
    omz_src zs;
    int rc;
    memset(&a, 0, sizeof(a));
    *handled = 0;
    a.m = m;
    a.lim = lim;
    a.err = err;
    a.src = m->name ? m->name : "<memory>";
    zs.mem = &m->mem;
    zs.input = m->input;
    zs.lim = lim;
    zs.err = err;
    zs.src = a.src;
    if ((rc = omz_open(&a.z, &zs, data, size))) {
        *handled = 1;
        return rc;
    }
    ir_intern_init(&a.in, &m->mem, &m->arena);
    rc = classify(&a, handled);
    ir_intern_free(&a.in);
    omz_close(a.z);
    return rc;
}
