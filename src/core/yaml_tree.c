/*
 * core/yaml_tree.c - libyaml events -> bounded tree (see yaml_tree.h).
 */
#include "yaml_tree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "err.h"

typedef struct open_node {
    yt_node *node;
    om_vec kids;  /* yt_node* */
} open_node;

typedef struct builder {
    om_arena *A;
    const char *src;
    opmap_error *err;
    open_node *stack;
    uint32_t depth, max_depth;
    uint64_t nodes, max_nodes;
    yt_node *root;
} builder;

static int fail_mark(builder *b, int code, yaml_mark_t mark, const char *msg, const char *extra)
{
    return om_fail_line(b->err, code, b->src, (uint32_t)mark.line + 1, (uint32_t)mark.column + 1,
                        "%s%s", msg, extra ? extra : "");
}

static int key_cmp(const void *a, const void *b)
{
    const yt_node *x = *(yt_node *const *)a, *y = *(yt_node *const *)b;
    int c;
    if (x->kind != YT_SCALAR || y->kind != YT_SCALAR)
        return (int)x->kind - (int)y->kind;
    c = strcmp(x->str, y->str);
    if (c)
        return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Duplicate keys are refused: sort a copy of the keys, compare neighbours. */
static int check_duplicates(builder *b, yt_node *map)
{
    yt_node **keys;
    size_t i;
    int rc = OPMAP_OK;
    if (map->n < 2)
        return OPMAP_OK;
    keys = om_calloc(b->A->mem, map->n, sizeof(*keys));
    if (!keys)
        return om_fail_mem(b->err, b->A->mem, b->src);
    for (i = 0; i < map->n; i++)
        keys[i] = map->items[2 * i];
    qsort(keys, map->n, sizeof(*keys), key_cmp);
    for (i = 1; i < map->n; i++) {
        if (keys[i]->kind == YT_SCALAR && keys[i - 1]->kind == YT_SCALAR &&
            strcmp(keys[i]->str, keys[i - 1]->str) == 0) {
            rc = om_fail_line(b->err, OPMAP_EFORMAT, b->src, keys[i]->line, keys[i]->col,
                              "duplicate key '%s' (first at line %" PRIu32 ")", keys[i]->str,
                              keys[i - 1]->line);
            break;
        }
    }
    om_dealloc(b->A->mem, keys, map->n * sizeof(*keys));
    return rc;
}

static int add_child(builder *b, yt_node *n, yaml_mark_t mark)
{
    yt_node **slot;
    if (++b->nodes > b->max_nodes)
        return fail_mark(b, OPMAP_ELIMIT, mark, "more YAML nodes than max_yaml_nodes", NULL);
    if (b->depth == 0) {
        b->root = n;
        return OPMAP_OK;
    }
    slot = om_vec_push(&b->stack[b->depth - 1].kids, b->A->mem);
    if (!slot)
        return om_fail_mem(b->err, b->A->mem, b->src);
    *slot = n;
    return OPMAP_OK;
}

static yt_node *new_node(builder *b, yt_kind kind, yaml_mark_t mark)
{
    yt_node *n = om_arena_alloc(b->A, sizeof(*n));
    if (!n)
        return NULL;
    n->kind = kind;
    n->line = (uint32_t)mark.line + 1;
    n->col = (uint32_t)mark.column + 1;
    return n;
}

static int open_container(builder *b, yt_kind kind, yaml_mark_t mark, const yaml_char_t *anchor)
{
    yt_node *n;
    int rc;
    if (anchor)
        return fail_mark(b, OPMAP_EFORMAT, mark, "anchors (&) are not allowed in a table", NULL);
    if (b->depth >= b->max_depth) {
        char limit[32];
        snprintf(limit, sizeof(limit), " (%u)", (unsigned)b->max_depth);
        return fail_mark(b, OPMAP_ELIMIT, mark, "YAML nested deeper than max_yaml_depth", limit);
    }
    if (!(n = new_node(b, kind, mark)))
        return om_fail_mem(b->err, b->A->mem, b->src);
    if ((rc = add_child(b, n, mark)))
        return rc;
    b->stack[b->depth].node = n;
    om_vec_init(&b->stack[b->depth].kids, sizeof(yt_node *));
    b->depth++;
    return OPMAP_OK;
}

static int close_container(builder *b, yaml_mark_t mark)
{
    open_node *o = &b->stack[b->depth - 1];
    yt_node *n = o->node;
    size_t count = o->kids.len;
    int rc = OPMAP_OK;
    if (count) {
        n->items = om_arena_array(b->A, count, sizeof(yt_node *));
        if (!n->items)
            rc = om_fail_mem(b->err, b->A->mem, b->src);
        else
            memcpy(n->items, o->kids.data, count * sizeof(yt_node *));
    }
    n->n = n->kind == YT_MAP ? count / 2 : count;
    om_vec_free(&o->kids, b->A->mem);
    b->depth--;
    if (rc == OPMAP_OK && n->kind == YT_MAP)
        rc = check_duplicates(b, n);
    (void)mark;
    return rc;
}

/* 1-based line and column (in bytes) of byte `off` of the input. */
static void line_col(const unsigned char *data, size_t size, size_t off, uint32_t *line,
                     uint32_t *col)
{
    size_t i, start = 0;
    uint32_t n = 1;
    if (off > size)
        off = size;
    for (i = 0; i < off; i++)
        if (data[i] == '\n') {
            n++;
            start = i + 1;
        }
    *line = n;
    *col = (uint32_t)(off - start) + 1;
}

int yt_parse(const unsigned char *data, size_t size, const char *src, om_arena *arena,
             uint32_t max_depth, uint64_t max_nodes, yt_node **root, opmap_error *err)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    builder b;
    int rc = OPMAP_OK, docs = 0, done = 0;

    memset(&b, 0, sizeof(b));
    b.A = arena;
    b.src = src;
    b.err = err;
    b.max_depth = max_depth;
    b.max_nodes = max_nodes;
    b.stack = om_calloc(arena->mem, (size_t)max_depth + 1, sizeof(open_node));
    if (!b.stack)
        return om_fail_mem(err, arena->mem, src);
    if (!yaml_parser_initialize(&parser)) {
        om_dealloc(arena->mem, b.stack, ((size_t)max_depth + 1) * sizeof(open_node));
        return om_fail(err, OPMAP_ENOMEM, src, "out of memory");
    }
    yaml_parser_set_input_string(&parser, data, size);

    while (!done && rc == OPMAP_OK) {
        if (!yaml_parser_parse(&parser, &ev)) {
            const char *problem = parser.problem ? parser.problem : "YAML syntax error";
            if (parser.error == YAML_MEMORY_ERROR) {
                rc = om_fail(err, OPMAP_ENOMEM, src, "out of memory");
            } else if (parser.error == YAML_READER_ERROR) {
                /* bad UTF-8, NUL, control characters: libyaml gives a byte offset only */
                uint32_t line, col;
                line_col(data, size, parser.problem_offset, &line, &col);
                rc = om_fail_line(err, OPMAP_EFORMAT, src, line, col, "%s", problem);
            } else {
                rc = om_fail_line(err, OPMAP_EFORMAT, src, (uint32_t)parser.problem_mark.line + 1,
                                  (uint32_t)parser.problem_mark.column + 1, "%s%s%s", problem,
                                  parser.context ? " " : "",
                                  parser.context ? parser.context : "");
            }
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc = fail_mark(&b, OPMAP_EFORMAT, ev.start_mark,
                               "more than one YAML document in a table", NULL);
            break;
        case YAML_ALIAS_EVENT:
            rc = fail_mark(&b, OPMAP_EFORMAT, ev.start_mark,
                           "aliases (*) are not allowed in a table", NULL);
            break;
        case YAML_SCALAR_EVENT: {
            yt_node *n;
            if (ev.data.scalar.anchor) {
                rc = fail_mark(&b, OPMAP_EFORMAT, ev.start_mark,
                               "anchors (&) are not allowed in a table", NULL);
                break;
            }
            if (!(n = new_node(&b, YT_SCALAR, ev.start_mark)) ||
                !(n->str = om_arena_strndup(arena, (const char *)ev.data.scalar.value,
                                            ev.data.scalar.length))) {
                rc = om_fail_mem(err, arena->mem, src);
                break;
            }
            n->len = ev.data.scalar.length;
            n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
            rc = add_child(&b, n, ev.start_mark);
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
            rc = open_container(&b, YT_SEQ, ev.start_mark, ev.data.sequence_start.anchor);
            break;
        case YAML_MAPPING_START_EVENT:
            rc = open_container(&b, YT_MAP, ev.start_mark, ev.data.mapping_start.anchor);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            rc = close_container(&b, ev.end_mark);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    while (b.depth) {
        b.depth--;
        om_vec_free(&b.stack[b.depth].kids, arena->mem);
    }
    yaml_parser_delete(&parser);
    om_dealloc(arena->mem, b.stack, ((size_t)max_depth + 1) * sizeof(open_node));
    if (rc == OPMAP_OK && !b.root)
        rc = om_fail_line(err, OPMAP_EFORMAT, src, 1, 1, "empty table: no YAML document");
    if (rc == OPMAP_OK)
        *root = b.root;
    return rc;
}

const yt_node *yt_get(const yt_node *map, const char *key)
{
    size_t i;
    if (!map || map->kind != YT_MAP)
        return NULL;
    for (i = 0; i < map->n; i++) {
        const yt_node *k = map->items[2 * i];
        if (k->kind == YT_SCALAR && strcmp(k->str, key) == 0)
            return map->items[2 * i + 1];
    }
    return NULL;
}
