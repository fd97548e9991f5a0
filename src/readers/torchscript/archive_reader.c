/*
 * readers/torchscript/archive_reader.c - a torch.jit.save archive -> IR (see
 * torchscript_reader.h).
 *
 * Entries are looked up as torch.jit.load looks them up: under the folder of the zip's
 * first entry, ASCII case ignored. They are read one at a time and freed once parsed: every
 * code/X.py into classes and functions, its code/X.py.debug_pkl into (code offset -> file,
 * line) records; data/ (tensor storages) is never opened. data.pkl is run as torch's
 * unpickler runs it (ts_root): the class of the object it builds is the model, and its
 * forward is built, inlined and emitted (ts_opt, tsir_lower). Zips that are not TorchScript
 * get a clear OPMAP_EUNSUPPORTED.
 */
#include "torchscript_reader.h"

#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "core/err.h"
#include "readers/torchscript/lang/syntax.h"
#include "readers/torchscript/common/context.h"
#include "readers/torchscript/lower/lower.h"
#include "readers/torchscript/passes/optimize.h"
#include "readers/torchscript/container/debug_pkl.h"
#include "root_module.h"
#include "readers/torchscript/lang/types.h"
#include "readers/zip/zip.h"

/* The part of an entry name after its top-level folder ("archive/code/x.py" -> "code/x.py"). */
static const char *rel_name(const char *name)
{
    const char *slash = strchr(name, '/');
    return slash ? slash + 1 : name;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static int is_pt2_marker(const char *rel)
{
    return strcmp(rel, "archive_format") == 0 ||
           (strncmp(rel, "models/", 7) == 0 && ends_with(rel, ".json")) ||
           strcmp(rel, "serialized_exported_program.json") == 0 ||
           strcmp(rel, "serialized_state_dict.pt") == 0 ||
           strcmp(rel, "serialized_state_dict.json") == 0;
}

/* "code/__torch__/a/b.py" -> "__torch__.a.b" */
static const char *module_of(ts_ctx *c, const char *rel)
{
    size_t n = strlen(rel) - 5 - 3, i;
    char *s = om_arena_strndup(&c->tmp, rel + 5, n);
    if (!s)
        return NULL;
    for (i = 0; i < n; i++)
        if (s[i] == '/')
            s[i] = '.';
    return s;
}

static int read_code(ts_ctx *c, omz_zip *z, tsl_program *prog, uint64_t i, const char *name,
                     const char *rel)
{
    unsigned char *buf;
    size_t len;
    const char *module = module_of(c, rel);
    tsl_file *file;
    int rc;
    int64_t dbg;
    char *dname;
    if (!module)
        return ts_oom(c);
    if ((rc = omz_read(z, i, c->lim->max_entry_bytes, 0, &buf, &len)))
        return rc;
    rc = tsl_parse_entry(c, prog, name, module, buf, len, &file);
    omz_free(z, buf, len);
    if (rc)
        return rc;
    /* its debug records, when present */
    if (!(dname = om_arena_printf(&c->tmp, "%s.debug_pkl", name)))
        return ts_oom(c);
    dbg = omz_find(z, dname);
    if (dbg < 0)
        return OPMAP_OK;
    if ((rc = omz_read(z, (uint64_t)dbg, c->lim->max_entry_bytes, 0, &buf, &len)))
        return rc;
    rc = tsc_debug_read(c, dname, buf, len, &file->dbg);
    omz_free(z, buf, len);
    return rc;
}

/* Case-blind (ASCII) prefix and suffix tests: torch finds entries ignoring case. */
static int ci_prefix(const char *s, const char *p)
{
    return strncasecmp(s, p, strlen(p)) == 0;
}

static int ci_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* The class whose forward is the model: the object data.pkl builds, as torch.jit.load. */
static int root_class(ts_ctx *c, omz_zip *z, tsl_program *prog, int64_t data_pkl, tsl_class **root)
{
    unsigned char *buf;
    size_t len;
    const char *name = omz_name(z, (uint64_t)data_pkl);
    int rc = omz_read(z, (uint64_t)data_pkl, c->lim->max_entry_bytes, 0, &buf, &len);
    if (rc)
        return rc;
    rc = ts_root_class(c, prog, name, buf, len, root);
    omz_free(z, buf, len);
    return rc;
}

/* The version entry, which torch requires (.data/version first) and parses as a number;
 * its value is kept as m->ir_version (no range is checked: newer torch writes more). */
static int read_version(ts_ctx *c, omz_zip *z, ir_model *m, const char *prefix)
{
    char *vname = om_arena_printf(&c->tmp, "%s.data/version", prefix);
    int64_t i = vname ? omz_find(z, vname) : -1;
    unsigned char *buf;
    size_t len, k = 0;
    int64_t v = 0;
    int rc;
    if (i < 0 && (vname = om_arena_printf(&c->tmp, "%sversion", prefix)))
        i = omz_find(z, vname);
    if (!vname)
        return ts_oom(c);
    if (i < 0)
        return om_fail(c->err, OPMAP_EFORMAT, c->src,
                       "no %sversion entry (torch.jit.load refuses the archive)", prefix);
    if ((rc = omz_read(z, (uint64_t)i, 64, 1, &buf, &len)))
        return rc;
    while (k < len && (buf[k] == ' ' || (buf[k] >= '\t' && buf[k] <= '\r')))
        k++;
    if (k == len || buf[k] < '0' || buf[k] > '9') {
        omz_free(z, buf, len);
        return ts_fail(c, OPMAP_EFORMAT, omz_name(z, (uint64_t)i), 0, 0,
                       "the version is not a number (torch.jit.load refuses the archive)");
    }
    for (; k < len && buf[k] >= '0' && buf[k] <= '9' && v < 100000000; k++)
        v = v * 10 + (buf[k] - '0');
    m->ir_version = v;
    omz_free(z, buf, len);
    return OPMAP_OK;
}

/* What a zip that is not a TorchScript archive is, for the message; OPMAP_OK if it is one. */
static int not_torchscript(ts_ctx *c, omz_zip *z)
{
    uint64_t i, n = omz_count(z);
    int has_code = 0, has_data = 0, has_bytecode = 0;
    for (i = 0; i < n; i++) {
        const char *name = omz_name(z, i), *rel = rel_name(name);
        if (is_pt2_marker(rel) || is_pt2_marker(name))
            return om_fail(c->err, OPMAP_EUNSUPPORTED, c->src,
                           "torch.export entries (archive_format, models/*.json or "
                           "serialized_exported_program.json) in neither layout "
                           "torch.export.load reads: no archive_format in the folder of the "
                           "first entry, no serialized_exported_program.json at the top");
        if (ci_prefix(rel, "code/") && ci_suffix(rel, ".py"))
            has_code = 1;
        else if (strcasecmp(rel, "data.pkl") == 0)
            has_data = 1;
        else if (strcasecmp(rel, "bytecode.pkl") == 0)
            has_bytecode = 1;
    }
    if (has_code)
        return OPMAP_OK;
    if (has_data)
        return om_fail(c->err, OPMAP_EUNSUPPORTED, c->src,
                       "a torch.save checkpoint (weights or a pickled module, no code/): it "
                       "holds weights, not a graph; export the model with "
                       "torch.jit.trace(model, example_inputs).save(path) or "
                       "torch.onnx.export");
    if (has_bytecode)
        return om_fail(c->err, OPMAP_EUNSUPPORTED, c->src,
                       "a lite-interpreter archive with bytecode only (no code/): save it "
                       "with torch.jit.save instead");
    return om_fail(c->err, OPMAP_EUNSUPPORTED, c->src,
                   "a zip archive without TorchScript code (no code/ entries)");
}

/* Every code/ entry torch could look up: under the archive's folder, case ignored. */
static int read_all_code(ts_ctx *c, omz_zip *z, tsl_program *prog, const char *prefix)
{
    uint64_t i, n = omz_count(z);
    size_t pl = strlen(prefix);
    int rc;
    for (i = 0; i < n; i++) {
        const char *name = omz_name(z, i), *rel = name + pl;
        if (ci_prefix(name, prefix) && ci_prefix(rel, "code/") && ci_suffix(rel, ".py") &&
            (rc = read_code(c, z, prog, i, name, rel)))
            return rc;
    }
    return OPMAP_OK;
}

int om_ts_archive_read(ir_model *m, const unsigned char *data, uint64_t size,
                       const opmap_limits *lim, opmap_error *err)
{
    ts_ctx c;
    omz_src zs;
    omz_zip *z = NULL;
    tsl_program prog;
    int64_t data_pkl;
    const char *first, *slash;
    char *prefix, *name;
    int rc;
    tsl_class *root = NULL;
    tsl_func *fwd = NULL;

    ts_ctx_init(&c, m, lim, err);
    zs.mem = c.mem;
    zs.input = m->input;
    zs.lim = lim;
    zs.err = err;
    zs.src = c.src;
    tsl_program_init(&prog);
    m->format = OPMAP_FORMAT_TORCHSCRIPT;
    m->producer_name = "pytorch";
    m->producer_version = m->domain = "";
    if ((rc = omz_open(&z, &zs, data, size)) || (rc = not_torchscript(&c, z)))
        goto out;
    /* torch: the folder of the directory's first entry holds everything it looks up */
    first = omz_name(z, 0);
    if (!(slash = strchr(first, '/'))) {
        rc = ts_fail(&c, OPMAP_EFORMAT, first, 0, 0,
                     "the archive's first entry is not in a folder (torch.jit.load refuses "
                     "such archives)");
        goto out;
    }
    if (!(prefix = om_arena_strndup(&c.tmp, first, (size_t)(slash - first) + 1))) {
        rc = ts_oom(&c);
        goto out;
    }
    if ((rc = read_version(&c, z, m, prefix)))
        goto out;
    if (!(name = om_arena_printf(&c.tmp, "%sdata.pkl", prefix))) {
        rc = ts_oom(&c);
        goto out;
    }
    if ((data_pkl = omz_find(z, name)) < 0) {
        rc = om_fail(err, OPMAP_EFORMAT, c.src,
                     "no %sdata.pkl: the archive has no root module (torch.jit.load refuses "
                     "it too)", prefix);
        goto out;
    }
    if ((rc = read_all_code(&c, z, &prog, prefix)) ||
        (rc = root_class(&c, z, &prog, data_pkl, &root)))
        goto out;
    {
        uint32_t k;
        for (k = 0; k < root->n_methods; k++)
            if (strcmp(root->methods[k].name, "forward") == 0)
                fwd = &root->methods[k];
    }
    if (!fwd) {
        rc = ts_fail(&c, OPMAP_EFORMAT, root->file->entry, root->line, 1,
                     "the TorchScript archive's root module %s has no forward method",
                     root->qual);
        goto out;
    }
    {
        tsl_types ty;
        tsj_graph *g;
        tsl_types_init(&ty, &c, &prog);
        rc = tsp_precheck(&c, &prog, &ty, fwd);
        if (rc == OPMAP_OK)
            rc = tsp_optimize_function(&c, &prog, &ty, fwd, 1, &g);
        if (rc == 1)
            rc = om_fail(err, OPMAP_EFORMAT, c.src, "the root forward calls itself");
        if (rc == OPMAP_OK)
            rc = tsir_lower(&c, g);
    }
out:
    omz_close(z);
    tsl_program_free(&c, &prog);
    ts_ctx_fini(&c);
    return rc;
}
