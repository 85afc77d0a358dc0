/* json.c — see json.h. A recursive-descent parser over (text, len) with an
 * explicit depth bound; values live in one arena owned by the document. */
#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- arena */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, size;
    max_align_t data[]; /* size bytes */
} arena_chunk_t;

struct json_doc {
    arena_chunk_t *chunks;
    json_value_t *root;
};

static void *arena_alloc(json_doc_t *d, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    arena_chunk_t *c = d->chunks;
    if (!c || c->size - c->used < n) {
        size_t size = n > 65536 ? n : 65536;
        c = malloc(sizeof *c + size);
        if (!c)
            return NULL;
        c->next = d->chunks;
        c->used = 0;
        c->size = size;
        d->chunks = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

/* ---------------------------------------------------------------- parser state */

typedef struct parser {
    const unsigned char *s;
    size_t len, pos;
    unsigned max_depth;
    json_doc_t *doc;
    json_error_t *err;
    int failed; /* -EINVAL or -ENOMEM once something went wrong */
    /* scratch stacks shared by every nesting level */
    json_value_t **vals;
    size_t nvals, capvals;
    json_member_t *mems;
    size_t nmems, capmems;
    char *buf; /* string decoding */
    size_t nbuf, capbuf;
} parser_t;

static void fail_at(parser_t *p, size_t at, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = -EINVAL;
    if (!p->err)
        return;
    p->err->offset = at;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
}

static void fail_nomem(parser_t *p)
{
    if (!p->failed) {
        p->failed = -ENOMEM;
        if (p->err) {
            p->err->offset = p->pos;
            snprintf(p->err->msg, sizeof p->err->msg, "out of memory");
        }
    }
}

/* Describe the byte at pos for a message ("'x'", "byte 0x01", "end of input"). */
static const char *describe(const parser_t *p, size_t at, char *tmp, size_t n)
{
    if (at >= p->len)
        return "end of input";
    unsigned char c = p->s[at];
    if (c >= 0x20 && c < 0x7f)
        snprintf(tmp, n, "'%c'", c);
    else
        snprintf(tmp, n, "byte 0x%02x", c);
    return tmp;
}

static void skip_ws(parser_t *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int grow(parser_t *p, void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*ptr, nc * elem);
    if (!np) {
        fail_nomem(p);
        return -1;
    }
    *ptr = np;
    *cap = nc;
    return 0;
}

static int buf_put(parser_t *p, const void *bytes, size_t n)
{
    if (grow(p, (void **)&p->buf, &p->capbuf, p->nbuf + n + 1, 1))
        return -1;
    memcpy(p->buf + p->nbuf, bytes, n);
    p->nbuf += n;
    return 0;
}

static json_value_t *new_value(parser_t *p, json_type_t t, size_t pos)
{
    json_value_t *v = arena_alloc(p->doc, sizeof *v);
    if (!v) {
        fail_nomem(p);
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = t;
    v->pos = pos;
    return v;
}

static json_value_t *parse_value(parser_t *p, unsigned depth);

/* ---------------------------------------------------------------- strings */

static int hex4(parser_t *p, size_t at, unsigned *out)
{
    if (p->len - at < 4) {
        fail_at(p, at, "truncated \\u escape (4 hex digits expected)");
        return -1;
    }
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p->s[at + i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else {
            char tmp[16];
            fail_at(p, at + i, "bad \\u escape: %s is not a hex digit", describe(p, at + i, tmp, sizeof tmp));
            return -1;
        }
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

static int put_utf8(parser_t *p, unsigned cp)
{
    unsigned char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xc0 | cp >> 6);
        b[1] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xe0 | cp >> 12);
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xf0 | cp >> 18);
        b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return buf_put(p, b, n);
}

/* Length of the valid UTF-8 sequence starting at at (1..4), or 0. */
static size_t utf8_seq(const parser_t *p, size_t at)
{
    const unsigned char *s = p->s + at;
    size_t left = p->len - at;
    unsigned char c = s[0];
    size_t n;
    unsigned cp, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2, cp = c & 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3, cp = c & 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else
        return 0;
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* p->pos at the opening quote. Decodes into p->buf; 0 or -1. */
static int decode_string(parser_t *p)
{
    size_t start = p->pos;
    p->pos++;
    p->nbuf = 0;
    for (;;) {
        if (p->pos >= p->len) {
            fail_at(p, start, "unterminated string");
            return -1;
        }
        unsigned char c = p->s[p->pos];
        if (c == '"') {
            p->pos++;
            if (grow(p, (void **)&p->buf, &p->capbuf, p->nbuf + 1, 1))
                return -1;
            p->buf[p->nbuf] = 0;
            return 0;
        }
        if (c < 0x20) {
            fail_at(p, p->pos, "control character 0x%02x in a string (must be escaped)", c);
            return -1;
        }
        if (c == '\\') {
            size_t esc = p->pos;
            if (p->pos + 1 >= p->len) {
                fail_at(p, start, "unterminated string");
                return -1;
            }
            unsigned char e = p->s[p->pos + 1];
            char out;
            switch (e) {
            case '"': out = '"'; break;
            case '\\': out = '\\'; break;
            case '/': out = '/'; break;
            case 'b': out = '\b'; break;
            case 'f': out = '\f'; break;
            case 'n': out = '\n'; break;
            case 'r': out = '\r'; break;
            case 't': out = '\t'; break;
            case 'u': {
                unsigned cp;
                if (hex4(p, p->pos + 2, &cp))
                    return -1;
                p->pos += 6;
                if (cp >= 0xdc00 && cp <= 0xdfff) {
                    fail_at(p, esc, "lone low surrogate \\u%04x", cp);
                    return -1;
                }
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    unsigned lo;
                    if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
                        fail_at(p, esc, "high surrogate \\u%04x not followed by a \\u low surrogate", cp);
                        return -1;
                    }
                    if (hex4(p, p->pos + 2, &lo))
                        return -1;
                    if (lo < 0xdc00 || lo > 0xdfff) {
                        fail_at(p, esc, "high surrogate \\u%04x followed by \\u%04x, not a low surrogate", cp, lo);
                        return -1;
                    }
                    p->pos += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                }
                if (put_utf8(p, cp))
                    return -1;
                continue;
            }
            default: {
                char tmp[16];
                fail_at(p, esc, "bad escape \\%s", describe(p, p->pos + 1, tmp, sizeof tmp));
                return -1;
            }
            }
            if (buf_put(p, &out, 1))
                return -1;
            p->pos += 2;
            continue;
        }
        size_t n = utf8_seq(p, p->pos);
        if (!n) {
            fail_at(p, p->pos, "invalid UTF-8 byte 0x%02x in a string", c);
            return -1;
        }
        if (buf_put(p, p->s + p->pos, n))
            return -1;
        p->pos += n;
    }
}

static const char *arena_copy(parser_t *p, const char *s, size_t n)
{
    char *c = arena_alloc(p->doc, n + 1);
    if (!c) {
        fail_nomem(p);
        return NULL;
    }
    memcpy(c, s, n);
    c[n] = 0;
    return c;
}

static json_value_t *parse_string(parser_t *p)
{
    json_value_t *v = new_value(p, JSON_STRING, p->pos);
    if (!v || decode_string(p))
        return NULL;
    v->u.string.s = arena_copy(p, p->buf, p->nbuf);
    v->u.string.len = p->nbuf;
    return v->u.string.s ? v : NULL;
}

/* ---------------------------------------------------------------- numbers */

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static json_value_t *parse_number(parser_t *p)
{
    size_t start = p->pos;
    int neg = 0, overflow = 0, is_int = 1;
    uint64_t mag = 0;
    char tmp[16];
    if (p->s[p->pos] == '-') {
        neg = 1;
        p->pos++;
    }
    if (p->pos >= p->len || !is_digit(p->s[p->pos])) {
        fail_at(p, p->pos, "expected a digit after '-', got %s", describe(p, p->pos, tmp, sizeof tmp));
        return NULL;
    }
    if (p->s[p->pos] == '0') {
        p->pos++;
        if (p->pos < p->len && is_digit(p->s[p->pos])) {
            fail_at(p, start, "number with a leading zero");
            return NULL;
        }
    } else {
        while (p->pos < p->len && is_digit(p->s[p->pos])) {
            unsigned d = p->s[p->pos] - '0';
            if (mag > (UINT64_MAX - d) / 10)
                overflow = 1;
            else
                mag = mag * 10 + d;
            p->pos++;
        }
    }
    if (p->pos < p->len && p->s[p->pos] == '.') {
        is_int = 0;
        p->pos++;
        if (p->pos >= p->len || !is_digit(p->s[p->pos])) {
            fail_at(p, p->pos, "expected a digit after '.', got %s", describe(p, p->pos, tmp, sizeof tmp));
            return NULL;
        }
        while (p->pos < p->len && is_digit(p->s[p->pos]))
            p->pos++;
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        is_int = 0;
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        if (p->pos >= p->len || !is_digit(p->s[p->pos])) {
            fail_at(p, p->pos, "expected a digit in the exponent, got %s", describe(p, p->pos, tmp, sizeof tmp));
            return NULL;
        }
        while (p->pos < p->len && is_digit(p->s[p->pos]))
            p->pos++;
    }
    if (is_int && !overflow && (!neg || mag <= (1ull << 63))) {
        json_value_t *v = new_value(p, JSON_INT, start);
        if (!v)
            return NULL;
        v->u.integer.mag = mag;
        v->u.integer.neg = neg && mag != 0;
        return v;
    }
    json_value_t *v = new_value(p, JSON_NUMBER, start);
    if (!v)
        return NULL;
    const char *raw = arena_copy(p, (const char *)p->s + start, p->pos - start);
    if (!raw)
        return NULL;
    v->u.number.raw = raw;
    v->u.number.value = strtod(raw, NULL);
    return v;
}

/* ---------------------------------------------------------------- containers */

static int key_cmp(const json_member_t *a, const json_member_t *b)
{
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(a->key, b->key, n);
    if (c)
        return c;
    return a->key_len < b->key_len ? -1 : a->key_len > b->key_len;
}

static int member_order(const void *x, const void *y)
{
    const json_member_t *a = *(const json_member_t *const *)x, *b = *(const json_member_t *const *)y;
    int c = key_cmp(a, b);
    if (c)
        return c;
    return a->key_pos < b->key_pos ? -1 : a->key_pos > b->key_pos;
}

/* The member whose key repeats an earlier one, first in text order; NULL when none. */
static const json_member_t *find_duplicate(parser_t *p, json_member_t *m, size_t n)
{
    const json_member_t *dup = NULL;
    if (n <= 16) {
        for (size_t j = 1; j < n && !dup; j++)
            for (size_t i = 0; i < j; i++)
                if (!key_cmp(&m[i], &m[j])) {
                    dup = &m[j];
                    break;
                }
        return dup;
    }
    const json_member_t **idx = malloc(n * sizeof *idx);
    if (!idx) {
        fail_nomem(p);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = &m[i];
    qsort(idx, n, sizeof *idx, member_order);
    for (size_t i = 1; i < n; i++)
        if (!key_cmp(idx[i - 1], idx[i]) && (!dup || idx[i]->key_pos < dup->key_pos))
            dup = idx[i];
    free(idx);
    return dup;
}

/* The next character is ch: consume it. */
static int eat(parser_t *p, char ch)
{
    if (p->pos < p->len && p->s[p->pos] == ch) {
        p->pos++;
        return 1;
    }
    return 0;
}

/* An array's or object's opening bracket, at nesting depth: its value (the
 * blanks after the bracket skipped), or NULL (nested too deep, no memory). */
static json_value_t *open_container(parser_t *p, json_type_t t, unsigned depth)
{
    json_value_t *v = new_value(p, t, p->pos);
    if (!v)
        return NULL;
    if (depth >= p->max_depth) {
        fail_at(p, p->pos, "nesting deeper than %u levels", p->max_depth);
        return NULL;
    }
    p->pos++;
    skip_ws(p);
    return v;
}

/* After an item of an array or object (in: "an array", "an object"): 1 at
 * ',' (another item follows), 0 at the closing bracket, -1 (failed) else. */
static int next_item(parser_t *p, char close, const char *in)
{
    skip_ws(p);
    if (eat(p, ','))
        return 1;
    if (eat(p, close))
        return 0;
    char tmp[16];
    fail_at(p, p->pos, "expected ',' or '%c' in %s, got %s", close, in, describe(p, p->pos, tmp, sizeof tmp));
    return -1;
}

/* n items of size bytes, collected on the parser's stack, copied into the
 * document's arena (NULL: no memory). */
static void *arena_items(parser_t *p, const void *items, size_t n, size_t size)
{
    void *to = arena_alloc(p->doc, n * size);
    if (!to) {
        fail_nomem(p);
        return NULL;
    }
    memcpy(to, items, n * size);
    return to;
}

static json_value_t *parse_array(parser_t *p, unsigned depth)
{
    json_value_t *v = open_container(p, JSON_ARRAY, depth);
    if (!v || eat(p, ']'))
        return v;
    size_t base = p->nvals;
    int more;
    do {
        json_value_t *item = parse_value(p, depth + 1);
        if (!item)
            return NULL;
        if (grow(p, (void **)&p->vals, &p->capvals, p->nvals + 1, sizeof *p->vals))
            return NULL;
        p->vals[p->nvals++] = item;
    } while ((more = next_item(p, ']', "an array")) > 0);
    if (more < 0)
        return NULL;
    size_t n = p->nvals - base;
    if (!(v->u.array.items = arena_items(p, p->vals + base, n, sizeof *v->u.array.items)))
        return NULL;
    v->u.array.n = n;
    p->nvals = base;
    return v;
}

static json_value_t *parse_object(parser_t *p, unsigned depth)
{
    json_value_t *v = open_container(p, JSON_OBJECT, depth);
    if (!v || eat(p, '}'))
        return v;
    size_t base = p->nmems;
    char tmp[16];
    int more;
    do {
        skip_ws(p);
        if (p->pos >= p->len || p->s[p->pos] != '"') {
            fail_at(p, p->pos, "expected a string key in an object, got %s", describe(p, p->pos, tmp, sizeof tmp));
            return NULL;
        }
        json_member_t m;
        m.key_pos = p->pos;
        if (decode_string(p))
            return NULL;
        m.key_len = p->nbuf;
        if (!(m.key = arena_copy(p, p->buf, p->nbuf)))
            return NULL;
        skip_ws(p);
        if (!eat(p, ':')) {
            fail_at(p, p->pos, "expected ':' after the key \"%.40s\", got %s", m.key,
                    describe(p, p->pos, tmp, sizeof tmp));
            return NULL;
        }
        if (!(m.value = parse_value(p, depth + 1)))
            return NULL;
        if (grow(p, (void **)&p->mems, &p->capmems, p->nmems + 1, sizeof *p->mems))
            return NULL;
        p->mems[p->nmems++] = m;
    } while ((more = next_item(p, '}', "an object")) > 0);
    if (more < 0)
        return NULL;
    size_t n = p->nmems - base;
    const json_member_t *dup = find_duplicate(p, p->mems + base, n);
    if (p->failed)
        return NULL;
    if (dup) {
        fail_at(p, dup->key_pos, "duplicate key \"%.40s\"", dup->key);
        return NULL;
    }
    if (!(v->u.object.members = arena_items(p, p->mems + base, n, sizeof *v->u.object.members)))
        return NULL;
    v->u.object.n = n;
    p->nmems = base;
    return v;
}

static json_value_t *parse_literal(parser_t *p, const char *word, json_type_t t, int b)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n)) {
        fail_at(p, p->pos, "invalid literal (expected %s)", word);
        return NULL;
    }
    json_value_t *v = new_value(p, t, p->pos);
    if (v)
        v->u.boolean = b;
    p->pos += n;
    return v;
}

static json_value_t *parse_value(parser_t *p, unsigned depth)
{
    skip_ws(p);
    char tmp[16];
    if (p->pos >= p->len) {
        fail_at(p, p->pos, "unexpected end of input, expected a value");
        return NULL;
    }
    unsigned char c = p->s[p->pos];
    switch (c) {
    case '{': return parse_object(p, depth);
    case '[': return parse_array(p, depth);
    case '"': return parse_string(p);
    case 't': return parse_literal(p, "true", JSON_BOOL, 1);
    case 'f': return parse_literal(p, "false", JSON_BOOL, 0);
    case 'n': return parse_literal(p, "null", JSON_NULL, 0);
    default:
        if (c == '-' || is_digit(c))
            return parse_number(p);
        fail_at(p, p->pos, "unexpected %s, expected a value", describe(p, p->pos, tmp, sizeof tmp));
        return NULL;
    }
}

/* ---------------------------------------------------------------- API */

void json_free(json_doc_t *doc)
{
    if (!doc)
        return;
    for (arena_chunk_t *c = doc->chunks, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(doc);
}

int json_parse(const char *text, size_t len, unsigned max_depth, json_doc_t **out, json_error_t *err)
{
    *out = NULL;
    if (err)
        memset(err, 0, sizeof *err);
    json_doc_t *doc = calloc(1, sizeof *doc);
    if (!doc)
        return -ENOMEM;
    parser_t p;
    memset(&p, 0, sizeof p);
    p.s = (const unsigned char *)(text ? text : "");
    p.len = text ? len : 0;
    p.max_depth = max_depth ? max_depth : JSON_MAX_DEPTH_DEFAULT;
    p.doc = doc;
    p.err = err;
    json_value_t *root = parse_value(&p, 0);
    if (root) {
        skip_ws(&p);
        if (p.pos < p.len) {
            char tmp[16];
            fail_at(&p, p.pos, "unexpected %s after the value", describe(&p, p.pos, tmp, sizeof tmp));
        }
    }
    free(p.vals);
    free(p.mems);
    free(p.buf);
    if (p.failed || !root) {
        int rc = p.failed ? p.failed : -EINVAL;
        if (err) {
            size_t line = 1, col = 1;
            for (size_t i = 0; i < err->offset && i < p.len; i++) {
                if (p.s[i] == '\n') {
                    line++;
                    col = 1;
                } else
                    col++;
            }
            err->line = line;
            err->column = col;
        }
        json_free(doc);
        return rc;
    }
    doc->root = root;
    *out = doc;
    return 0;
}

const json_value_t *json_root(const json_doc_t *doc)
{
    return doc ? doc->root : NULL;
}

const json_value_t *json_get(const json_value_t *v, const char *key)
{
    if (!v || v->type != JSON_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < v->u.object.n; i++)
        if (v->u.object.members[i].key_len == n && !memcmp(v->u.object.members[i].key, key, n))
            return v->u.object.members[i].value;
    return NULL;
}

const char *json_type_phrase(json_type_t t)
{
    switch (t) {
    case JSON_NULL: return "null";
    case JSON_BOOL: return "a boolean";
    case JSON_INT: return "an integer";
    case JSON_NUMBER: return "a number";
    case JSON_STRING: return "a string";
    case JSON_ARRAY: return "an array";
    case JSON_OBJECT: return "an object";
    }
    return "?";
}

const char *json_type_name(json_type_t t)
{
    switch (t) {
    case JSON_NULL: return "null";
    case JSON_BOOL: return "boolean";
    case JSON_INT: return "integer";
    case JSON_NUMBER: return "number";
    case JSON_STRING: return "string";
    case JSON_ARRAY: return "array";
    case JSON_OBJECT: return "object";
    }
    return "?";
}

int json_as_u64(const json_value_t *v, uint64_t *out)
{
    if (!v)
        return -EINVAL;
    if (v->type == JSON_NUMBER) {
        /* An integer literal beyond 64 bits is out of range; anything else is not an integer. */
        return strpbrk(v->u.number.raw, ".eE") ? -EINVAL : -ERANGE;
    }
    if (v->type != JSON_INT)
        return -EINVAL;
    if (v->u.integer.neg)
        return -ERANGE;
    *out = v->u.integer.mag;
    return 0;
}

int json_as_i64(const json_value_t *v, int64_t *out)
{
    if (!v)
        return -EINVAL;
    if (v->type == JSON_NUMBER)
        return strpbrk(v->u.number.raw, ".eE") ? -EINVAL : -ERANGE;
    if (v->type != JSON_INT)
        return -EINVAL;
    if (v->u.integer.neg) {
        *out = v->u.integer.mag == (1ull << 63) ? INT64_MIN : -(int64_t)v->u.integer.mag;
        return 0;
    }
    if (v->u.integer.mag > (uint64_t)INT64_MAX)
        return -ERANGE;
    *out = (int64_t)v->u.integer.mag;
    return 0;
}

void json_write_string(FILE *f, const char *s, size_t len)
{
    fputc('"', f);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (c < 0x20)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
    }
    fputc('"', f);
}
