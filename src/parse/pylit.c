#include "parse/pylit.h"

#include "core/alloc.h"
#include "core/arena.h"

#include <limits.h>
#include <string.h>

/* ---- tokens (Python's lexical structure, docs.python.org/3/reference/lexical_analysis) ---- */

enum tok_kind { T_END, T_NEWLINE, T_NAME, T_NUMBER, T_STRING, T_OP, T_ERROR };

/* String prefixes. */
#define S_RAW    1u
#define S_BYTES  2u
#define S_FORMAT 4u /* f or t: an expression, never evaluated here */

struct tok {
    enum tok_kind kind;
    size_t start, end;     /* the token's text */
    size_t line;           /* 1-based line of its start */
    size_t depth;          /* bracket depth before it */
    bool indented;         /* its logical line starts after white space */
    char op[4];            /* OP: its text, NUL-terminated (operators have 1 to 3 bytes) */
    unsigned flags;        /* STRING: S_* */
    size_t body, body_end; /* STRING: the text between the quotes */
};

struct lexer {
    const char *p;
    size_t n, pos, line;
    size_t depth, open_line; /* open brackets, and the line of the outermost */
    bool line_start;         /* at the start of a logical line */
    bool indented;           /* the current logical line's */
    bool pending;            /* tokens since the last NEWLINE */
    bool eof_reported;       /* the unclosed bracket at the end was reported */
};

/* Length of the line break at `i`: "\r\n", "\n" or "\r" (Python reads all three), else 0. */
static size_t newline_at(const struct lexer *lx, size_t i)
{
    if (i >= lx->n)
        return 0;
    if (lx->p[i] == '\n')
        return 1;
    if (lx->p[i] != '\r')
        return 0;
    return i + 1 < lx->n && lx->p[i + 1] == '\n' ? 2 : 1;
}

static bool blank(const struct lexer *lx)
{
    return lx->pos < lx->n &&
           (lx->p[lx->pos] == ' ' || lx->p[lx->pos] == '\t' || lx->p[lx->pos] == '\f');
}

static bool name_start(unsigned char c)
{
    /* Bytes of a UTF-8 sequence count as letters: Python identifiers may be non-ASCII. */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool name_char(unsigned char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

/* A comment runs to the end of its line; a NUL stops it, to be read as the error it is (CPython
 * refuses a NUL anywhere in the source, comments included). */
static void skip_comment(struct lexer *lx)
{
    while (lx->pos < lx->n && !newline_at(lx, lx->pos) && lx->p[lx->pos] != '\0')
        lx->pos++;
}

/* At the start of a logical line: skip blank and comment-only lines, then measure the
 * indentation (a form feed resets it, as in CPython). */
static void start_line(struct lexer *lx)
{
    for (;;) {
        size_t col = 0;
        while (blank(lx)) {
            col = lx->p[lx->pos] == '\f' ? 0 : col + 1;
            lx->pos++;
        }
        if (lx->pos < lx->n && lx->p[lx->pos] == '#')
            skip_comment(lx);
        size_t nl = newline_at(lx, lx->pos);
        if (nl) {
            lx->pos += nl;
            lx->line++;
            continue;
        }
        lx->indented = col > 0;
        lx->line_start = false;
        return;
    }
}

/* The flags of a string prefix ("rb", "f", "U", ...), or -1 when `len` bytes are not one. */
static int string_prefix(const char *s, size_t len)
{
    unsigned flags = 0;
    if (len == 0 || len > 2)
        return -1;
    for (size_t i = 0; i < len; i++) {
        char c = s[i] | 0x20; /* ASCII lower case; the letters below are all ASCII */
        unsigned bit = c == 'r'                 ? S_RAW
                       : c == 'b'               ? S_BYTES
                       : (c == 'f' || c == 't') ? S_FORMAT
                                                : 0;
        if (c == 'u' && len == 1)
            return 0;
        if (!bit || (flags & bit))
            return -1;
        flags |= bit;
    }
    /* Only r combines: "br", "rf"; never "bf" or "ub". */
    if ((flags & S_BYTES) && (flags & S_FORMAT))
        return -1;
    return (int)flags;
}

/* A string literal whose opening quote is at `q`; the prefix (flags) starts at t->start. */
static void lex_string(struct lexer *lx, struct tok *t, size_t q, unsigned flags)
{
    char quote = lx->p[q];
    bool triple = q + 2 < lx->n && lx->p[q + 1] == quote && lx->p[q + 2] == quote;
    size_t i = q + (triple ? 3 : 1);
    bool nul = false;
    t->kind = T_STRING;
    t->flags = flags;
    t->body = i;
    for (;;) {
        if (i >= lx->n) {
            t->kind = T_ERROR; /* unterminated: runs to the end */
            break;
        }
        char c = lx->p[i];
        size_t nl = newline_at(lx, i);
        if (c == '\\' && i + 1 < lx->n) {
            /* An escaped character never ends the string, even in a raw one; an escaped NUL is
             * a NUL in the source all the same. */
            nul |= lx->p[i + 1] == '\0';
            size_t enl = newline_at(lx, i + 1);
            lx->line += enl != 0;
            i += enl ? 1 + enl : 2;
            continue;
        }
        if (nl && !triple) {
            t->kind = T_ERROR; /* a line break ends an unterminated single-quoted string */
            break;
        }
        if (nl) {
            lx->line++;
            i += nl;
            continue;
        }
        nul |= c == '\0';
        if (c == quote &&
            (!triple || (i + 2 < lx->n && lx->p[i + 1] == quote && lx->p[i + 2] == quote))) {
            t->body_end = i;
            i += triple ? 3 : 1;
            break;
        }
        i++;
    }
    if (t->kind == T_ERROR || nul) {
        t->kind = T_ERROR;
        t->body_end = i;
    }
    lx->pos = i;
}

static void lex_number(struct lexer *lx)
{
    size_t i = lx->pos;
    const char *p = lx->p;
    bool based = p[i] == '0' && i + 1 < lx->n && strchr("xXoObB", p[i + 1]) && p[i + 1];
    while (i < lx->n && (name_char((unsigned char)p[i]) || p[i] == '.')) {
        /* An exponent's sign belongs to the number: 1e-5. */
        if (!based && (p[i] == 'e' || p[i] == 'E') && i + 1 < lx->n &&
            (p[i + 1] == '+' || p[i + 1] == '-'))
            i++;
        i++;
    }
    lx->pos = i;
}

/* An operator or delimiter, the longest that matches; any other byte is one of its own. */
static void lex_op(struct lexer *lx, struct tok *t)
{
    static const char ops[][4] = { "**=", "//=", ">>=", "<<=", "...", "==", "!=", "<=",
                                   ">=",  "->",  "+=",  "-=",  "*=",  "/=", "%=", "&=",
                                   "|=",  "^=",  "@=",  ":=",  "**",  "//", "<<", ">>" };
    const char *at = lx->p + lx->pos;
    size_t left = lx->n - lx->pos, len = 1;
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        size_t n = ops[k][2] ? 3 : 2;
        if (ops[k][0] == at[0] && n <= left && memcmp(at, ops[k], n) == 0) {
            len = n;
            break;
        }
    }
    memcpy(t->op, at, len);
    lx->pos += len;
    char c = at[0];
    if (len > 1)
        return;
    if (c == '(' || c == '[' || c == '{') {
        if (lx->depth++ == 0)
            lx->open_line = lx->line;
    } else if ((c == ')' || c == ']' || c == '}') && lx->depth) {
        lx->depth--;
    }
}

/* A name, or the prefix of a string literal. */
static void lex_name(struct lexer *lx, struct tok *t)
{
    size_t i = lx->pos;
    while (i < lx->n && name_char((unsigned char)lx->p[i]))
        i++;
    int flags = -1;
    if (i < lx->n && (lx->p[i] == '\'' || lx->p[i] == '"'))
        flags = string_prefix(lx->p + lx->pos, i - lx->pos);
    if (flags >= 0) {
        lex_string(lx, t, i, (unsigned)flags);
        return;
    }
    t->kind = T_NAME;
    lx->pos = i;
}

/* The end of the input: an unclosed bracket is an error, then the last NEWLINE, then END. */
static void lex_end(struct lexer *lx, struct tok *t)
{
    if (lx->depth && !lx->eof_reported) {
        lx->eof_reported = true;
        t->kind = T_ERROR;
        t->line = lx->open_line;
    } else if (lx->pending) {
        lx->pending = false;
        t->kind = T_NEWLINE;
    } else {
        t->kind = T_END;
    }
}

/* Skip blanks, comments and joined line breaks up to the next token. True when, instead, a
 * line break ends the logical line there (a NEWLINE token). */
static bool skip_to_token(struct lexer *lx)
{
    for (;;) {
        if (lx->line_start)
            start_line(lx);
        while (blank(lx))
            lx->pos++;
        if (lx->pos >= lx->n)
            return false;
        size_t nl = newline_at(lx, lx->pos);
        if (lx->p[lx->pos] == '#') {
            skip_comment(lx);
        } else if (nl) {
            lx->pos += nl;
            lx->line++;
            if (lx->depth)
                continue; /* implicit line joining inside brackets */
            lx->line_start = true;
            if (lx->pending)
                return true;
        } else if (lx->p[lx->pos] == '\\' && newline_at(lx, lx->pos + 1)) {
            lx->pos += 1 + newline_at(lx, lx->pos + 1); /* explicit line joining */
            lx->line++;
        } else {
            return false;
        }
    }
}

static bool number_start(const struct lexer *lx)
{
    const char *p = lx->p + lx->pos;
    size_t left = lx->n - lx->pos;
    return (p[0] >= '0' && p[0] <= '9') || (p[0] == '.' && left > 1 && p[1] >= '0' && p[1] <= '9');
}

/* The token at lx->pos (there is one). */
static void lex_token(struct lexer *lx, struct tok *t)
{
    unsigned char c = (unsigned char)lx->p[lx->pos];
    if (c == '\'' || c == '"') {
        lex_string(lx, t, lx->pos, 0);
    } else if (name_start(c)) {
        lex_name(lx, t);
    } else if (number_start(lx)) {
        t->kind = T_NUMBER;
        lex_number(lx);
    } else if (c == '\0' || c == '\\') {
        /* CPython refuses source holding a NUL, and a backslash must end its line outside
         * strings. */
        t->kind = T_ERROR;
        lx->pos++;
    } else {
        t->kind = T_OP;
        lex_op(lx, t);
    }
}

static void lex(struct lexer *lx, struct tok *t)
{
    bool newline = skip_to_token(lx);
    memset(t, 0, sizeof *t);
    t->start = t->end = lx->pos;
    t->line = lx->line;
    t->depth = lx->depth;
    t->indented = lx->indented;
    if (newline) {
        lx->pending = false;
        t->kind = T_NEWLINE;
    } else if (lx->pos >= lx->n) {
        lex_end(lx, t);
    } else {
        lex_token(lx, t);
        t->end = lx->pos;
        lx->pending = true;
    }
}

/* ---- the parser --------------------------------------------------------------------------- */

struct binding {
    const char *name;
    struct gd_pylit value;
};

struct gd_pylit_file {
    struct gd_arena *arena;
    struct binding *binds;
    size_t nbinds, cap;
    size_t error_line;
};

/* Items of the containers being read, innermost last. */
struct entry {
    const char *key;
    struct gd_pylit value;
};

struct parser {
    const char *data;
    struct lexer lx;
    struct tok tok;
    size_t prev_end; /* end of the last token consumed */
    struct gd_pylit_file *f;
    struct entry *stack;
    size_t sp, cap;
    size_t values;
    bool line_error; /* the current logical line holds an error token */
    enum gd_status st;
};

static void fail(struct parser *p, enum gd_status st)
{
    if (p->st == GD_OK)
        p->st = st;
}

static void advance(struct parser *p)
{
    p->prev_end = p->tok.end;
    lex(&p->lx, &p->tok);
    if (p->tok.kind == T_ERROR) {
        p->line_error = true;
        if (!p->f->error_line)
            p->f->error_line = p->tok.line;
    }
}

static bool text_is(const struct parser *p, const struct tok *t, const char *s)
{
    size_t n = strlen(s);
    return t->end - t->start == n && memcmp(p->data + t->start, s, n) == 0;
}

static bool is_op(const struct parser *p, const char *op)
{
    return p->tok.kind == T_OP && strcmp(p->tok.op, op) == 0;
}

static bool is_name(const struct parser *p, const char *name)
{
    return p->tok.kind == T_NAME && text_is(p, &p->tok, name);
}

/* A one-byte operator of `set` (strchr would also find the NUL, which no operator is). */
static bool op_in(const struct parser *p, const char *set)
{
    const struct tok *t = &p->tok;
    return t->kind == T_OP && t->op[0] && !t->op[1] && strchr(set, t->op[0]);
}

static bool opener(const struct parser *p)
{
    return op_in(p, "([{");
}

static bool closer(const struct parser *p)
{
    return op_in(p, ")]}");
}

static bool line_end(const struct parser *p)
{
    return p->tok.kind == T_NEWLINE || p->tok.kind == T_END;
}

/* The end of a simple statement: a ';' outside brackets, or the end of the logical line. */
static bool stmt_end(const struct parser *p)
{
    return line_end(p) || (is_op(p, ";") && p->tok.depth == 0);
}

/* Where a value inside a display or a call ends. */
static bool value_end(const struct parser *p)
{
    return line_end(p) || closer(p) || is_op(p, ",") || is_op(p, ":") || is_op(p, ";");
}

static bool peek_op(const struct parser *p, const char *op)
{
    struct lexer lx = p->lx;
    struct tok t;
    lex(&lx, &t);
    return t.kind == T_OP && strcmp(t.op, op) == 0;
}

static bool peek_number(const struct parser *p)
{
    struct lexer lx = p->lx;
    struct tok t;
    lex(&lx, &t);
    return t.kind == T_NUMBER;
}

static void skip_line(struct parser *p)
{
    while (!line_end(p))
        advance(p);
}

static void skip_simple(struct parser *p)
{
    while (!stmt_end(p))
        advance(p);
}

/* Skip the rest of an expression, up to where a value ends at this bracket level. True when it
 * was a comprehension ("x for x in y"), which makes the display around it no literal. */
static bool skip_expr(struct parser *p)
{
    size_t local = 0, lambdas = 0;
    bool comprehension = false;
    while (!line_end(p)) {
        if (opener(p)) {
            local++;
        } else if (closer(p)) {
            if (local == 0)
                break;
            local--;
        } else if (local == 0 && (is_op(p, ",") || is_op(p, ";"))) {
            break;
        } else if (local == 0 && is_op(p, ":")) {
            if (lambdas == 0)
                break;
            lambdas--; /* the colon of "lambda x: y" */
        } else if (local == 0 && is_name(p, "lambda")) {
            lambdas++;
        } else if (local == 0 && (is_name(p, "for") || is_name(p, "async"))) {
            comprehension = true;
        }
        advance(p);
    }
    return comprehension;
}

/* Skip to and over the closing bracket of the display being read. */
static void skip_to_close(struct parser *p)
{
    size_t local = 0;
    while (!line_end(p)) {
        if (opener(p)) {
            local++;
        } else if (closer(p) && local-- == 0) {
            advance(p);
            return;
        }
        advance(p);
    }
}

static bool count_value(struct parser *p)
{
    if (++p->values > GD_PYLIT_MAX_VALUES)
        fail(p, GD_ELIMIT);
    return p->st == GD_OK;
}

/* An OTHER value: the source text from `start` to the last token consumed. */
static void make_other(struct parser *p, size_t start, struct gd_pylit *v)
{
    size_t n = p->prev_end > start ? p->prev_end - start : 0;
    if (n > GD_PYLIT_OTHER_TEXT - 1)
        n = GD_PYLIT_OTHER_TEXT - 1;
    char *s = gd_arena_alloc(p->f->arena, n + 1);
    memset(v, 0, sizeof *v);
    v->kind = GD_PYLIT_OTHER;
    if (!s) {
        fail(p, GD_ENOMEM);
        return;
    }
    memcpy(s, p->data + start, n);
    v->s = s;
    v->n = n;
}

static void push(struct parser *p, const char *key, const struct gd_pylit *v)
{
    if (gd_grow((void **)&p->stack, &p->cap, p->sp + 1, sizeof *p->stack) != 0) {
        fail(p, GD_ENOMEM);
        return;
    }
    p->stack[p->sp++] = (struct entry){ key, *v };
}

/* Move the entries above `base` into a LIST or DICT in the arena. */
static void finish(struct parser *p, size_t base, enum gd_pylit_kind kind, struct gd_pylit *v)
{
    size_t n = p->sp - base;
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->n = n;
    if (n) {
        v->items = gd_arena_alloc(p->f->arena, n * sizeof *v->items);
        if (kind == GD_PYLIT_DICT)
            v->keys = gd_arena_alloc(p->f->arena, n * sizeof *v->keys);
        if (!v->items || (kind == GD_PYLIT_DICT && !v->keys)) {
            fail(p, GD_ENOMEM);
            return;
        }
        for (size_t i = 0; i < n; i++) {
            v->items[i] = p->stack[base + i].value;
            if (v->keys)
                v->keys[i] = p->stack[base + i].key;
        }
    }
    p->sp = base;
}

/* ---- scalars ------------------------------------------------------------------------------ */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* `digits` hex digits at s[*i] (all of them must be there), advancing *i. -1 if not. */
static long hex_run(const char *s, size_t len, size_t *i, int digits)
{
    long v = 0;
    for (int k = 0; k < digits; k++) {
        int h = *i < len ? hex_value(s[*i]) : -1;
        if (h < 0)
            return -1;
        v = v * 16 + h;
        (*i)++;
    }
    return v;
}

static size_t put_utf8(char *out, long cp)
{
    /* Python str holds lone surrogates; UTF-8 cannot, so they read as U+FFFD. */
    if (cp >= 0xd800 && cp <= 0xdfff)
        cp = 0xfffd;
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A code point (str) or a byte (bytes) from a numeric escape. False when bytes cannot hold it. */
static bool put_code(char *out, size_t *o, long cp, bool bytes)
{
    if (bytes) {
        if (cp > 0xff)
            return false;
        out[(*o)++] = (char)cp;
        return true;
    }
    *o += put_utf8(out + *o, cp);
    return true;
}

/* One escape after a backslash, s[*i] being the character after it. False when Python rejects
 * it or it cannot be decoded without Python's tables (\N{...}). The output never outgrows the
 * escape: \xNN (4 bytes) gives at most 2, \uNNNN 3, \UNNNNNNNN 4, \ooo 2. */
static bool escape(const char *s, size_t len, size_t *i, bool bytes, char *out, size_t *o)
{
    static const char simple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
    char e = s[(*i)++];
    if (e == '\r' || e == '\n') {
        if (e == '\r' && *i < len && s[*i] == '\n')
            (*i)++;
        return true; /* an escaped line break joins the lines */
    }
    for (size_t k = 0; simple[k]; k += 2) {
        if (simple[k] == e) {
            out[(*o)++] = simple[k + 1];
            return true;
        }
    }
    if (e >= '0' && e <= '7') {
        long v = e - '0';
        for (int k = 0; k < 2 && *i < len && s[*i] >= '0' && s[*i] <= '7'; k++)
            v = v * 8 + (s[(*i)++] - '0');
        return put_code(out, o, v, bytes);
    }
    int digits = e == 'x' ? 2 : (!bytes && e == 'u') ? 4 : (!bytes && e == 'U') ? 8 : 0;
    if (digits) {
        long v = hex_run(s, len, i, digits);
        return v >= 0 && v <= 0x10ffff && put_code(out, o, v, bytes);
    }
    if (!bytes && e == 'N')
        return false;
    out[(*o)++] = '\\'; /* an unknown escape keeps its backslash */
    out[(*o)++] = e;
    return true;
}

/* Decode one literal's body into out + *o. False when it is not decodable. */
static bool decode(const char *s, size_t len, unsigned flags, char *out, size_t *o)
{
    size_t i = 0;
    while (i < len) {
        char c = s[i++];
        if (c == '\r') {
            /* Python reads source with universal newlines: "\r\n" and "\r" are "\n". */
            if (i < len && s[i] == '\n')
                i++;
            out[(*o)++] = '\n';
        } else if (c != '\\' || i >= len) {
            out[(*o)++] = c;
        } else if (flags & S_RAW) {
            out[(*o)++] = c; /* raw: the backslash stays, and so does what follows */
            out[(*o)++] = s[i] == '\r' ? '\n' : s[i];
            i += s[i] == '\r' && i + 1 < len && s[i + 1] == '\n' ? 2 : 1;
        } else if (!escape(s, len, &i, flags & S_BYTES, out, o)) {
            return false;
        }
    }
    return true;
}

/* Adjacent string literals, concatenated ("a" 'b' -> "ab"). */
static void parse_strings(struct parser *p, size_t start, struct gd_pylit *v)
{
    /* First pass: the room they need (never more than their bodies) and whether they can be
     * read at all: an f-string is an expression, and str and bytes do not concatenate. */
    struct lexer save = p->lx;
    struct tok first = p->tok, t = p->tok;
    size_t total = 0;
    bool other = false;
    for (; t.kind == T_STRING; lex(&save, &t)) {
        total += t.body_end - t.body;
        other |= (t.flags & S_FORMAT) || (t.flags & S_BYTES) != (first.flags & S_BYTES);
    }
    char *buf = other ? NULL : gd_arena_alloc(p->f->arena, total + 1);
    if (!other && !buf) {
        fail(p, GD_ENOMEM);
        return;
    }
    size_t o = 0;
    for (; p->tok.kind == T_STRING; advance(p)) {
        if (!other)
            other = !decode(p->data + p->tok.body, p->tok.body_end - p->tok.body, p->tok.flags, buf,
                            &o);
    }
    if (other) {
        make_other(p, start, v);
        return;
    }
    buf[o] = '\0';
    memset(v, 0, sizeof *v);
    v->kind = GD_PYLIT_STR;
    v->s = buf;
    v->n = o;
}

/* An int token: decimal, 0x, 0o or 0b, '_' between digits; false when it is not one (a float, a
 * complex, "01") or does not fit a long long with its sign. */
static bool int_value(const char *s, size_t len, bool neg, long long *out)
{
    unsigned base = 10;
    size_t i = 0;
    if (len >= 2 && s[0] == '0' && strchr("xXoObB", s[1]) && s[1]) {
        base = (s[1] | 0x20) == 'x' ? 16 : (s[1] | 0x20) == 'o' ? 8 : 2;
        i = 2;
        if (i < len && s[i] == '_')
            i++; /* 0x_ff */
    }
    unsigned long long v = 0, limit = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    bool digit = false, zero_lead = base == 10 && s[0] == '0';
    for (; i < len; i++) {
        if (s[i] == '_') {
            if (!digit || i + 1 >= len || s[i + 1] == '_')
                return false;
            continue;
        }
        int d = hex_value(s[i]);
        if (d < 0 || (unsigned)d >= base || (zero_lead && d != 0))
            return false; /* "01" is a SyntaxError in Python 3 */
        if (v > (limit - (unsigned)d) / base)
            return false;
        v = v * base + (unsigned)d;
        digit = true;
    }
    if (!digit)
        return false;
    *out =
        neg ? (v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v) : (long long)v;
    return true;
}

static void parse_number(struct parser *p, size_t start, bool neg, struct gd_pylit *v)
{
    long long x;
    bool ok = int_value(p->data + p->tok.start, p->tok.end - p->tok.start, neg, &x);
    advance(p);
    if (!ok) {
        make_other(p, start, v);
        return;
    }
    memset(v, 0, sizeof *v);
    v->kind = GD_PYLIT_INT;
    v->i = x;
}

/* ---- displays and calls ------------------------------------------------------------------- */

static void parse_value(struct parser *p, size_t depth, struct gd_pylit *v, bool *spoil);

/* The rest of a display that turned out no literal: an OTHER of all of it. */
static void abandon(struct parser *p, size_t base, size_t start, struct gd_pylit *v)
{
    p->sp = base;
    skip_to_close(p);
    make_other(p, start, v);
}

/* After "[" or "(": items up to `close`. A parenthesised single value is that value. */
static void parse_seq(struct parser *p, size_t depth, size_t start, const char *close,
                      struct gd_pylit *v)
{
    size_t base = p->sp;
    bool spoil = false, comma = false;
    while (p->st == GD_OK && !is_op(p, close)) {
        struct gd_pylit item;
        parse_value(p, depth + 1, &item, &spoil);
        push(p, NULL, &item);
        if (is_op(p, ",")) {
            comma = true;
            advance(p);
        } else if (!is_op(p, close)) {
            abandon(p, base, start, v);
            return;
        }
    }
    if (p->st != GD_OK)
        return;
    advance(p); /* the closing bracket */
    if (spoil) {
        p->sp = base;
        make_other(p, start, v);
    } else if (close[0] == ')' && p->sp - base == 1 && !comma) {
        *v = p->stack[--p->sp].value;
    } else {
        finish(p, base, GD_PYLIT_LIST, v);
    }
}

/* A key that can name a dict item here: a string without a NUL. */
static bool good_key(const struct gd_pylit *k)
{
    return k->kind == GD_PYLIT_STR && strlen(k->s) == k->n;
}

/* After "{": a dict of string keys; a set, a comprehension or "**" is no literal. */
static void parse_dict(struct parser *p, size_t depth, size_t start, struct gd_pylit *v)
{
    size_t base = p->sp;
    bool spoil = false, keys_ok = true;
    while (p->st == GD_OK && !is_op(p, "}")) {
        struct gd_pylit key, value;
        parse_value(p, depth + 1, &key, &spoil);
        if (!is_op(p, ":")) {
            abandon(p, base, start, v);
            return;
        }
        advance(p);
        parse_value(p, depth + 1, &value, &spoil);
        keys_ok &= good_key(&key);
        push(p, key.s, &value);
        if (is_op(p, ","))
            advance(p);
        else if (!is_op(p, "}")) {
            abandon(p, base, start, v);
            return;
        }
    }
    if (p->st != GD_OK)
        return;
    advance(p);
    if (spoil || !keys_ok) {
        p->sp = base;
        make_other(p, start, v);
        return;
    }
    finish(p, base, GD_PYLIT_DICT, v);
}

/* The items of a positional argument of dict() or OrderedDict(): a dict, or a list or tuple of
 * (key, value) pairs. False when it is neither. */
static bool push_pairs(struct parser *p, const struct gd_pylit *arg)
{
    /* n counts the bytes of a STR or an OTHER, not items: only displays are walked. */
    if (arg->kind != GD_PYLIT_DICT && arg->kind != GD_PYLIT_LIST)
        return false;
    for (size_t i = 0; i < arg->n && p->st == GD_OK; i++) {
        const struct gd_pylit *it = &arg->items[i];
        if (arg->kind == GD_PYLIT_DICT) {
            push(p, arg->keys[i], it);
        } else if (arg->kind == GD_PYLIT_LIST && it->kind == GD_PYLIT_LIST && it->n == 2 &&
                   good_key(&it->items[0])) {
            push(p, it->items[0].s, &it->items[1]);
        } else {
            return false;
        }
    }
    return true;
}

/* After "dict(" or "OrderedDict(": one optional positional argument, then NAME=value ones. */
static void parse_call(struct parser *p, size_t depth, size_t start, struct gd_pylit *v)
{
    size_t base = p->sp;
    bool spoil = false, ok = true;
    if (!is_op(p, ")") && !(p->tok.kind == T_NAME && peek_op(p, "="))) {
        struct gd_pylit arg;
        parse_value(p, depth + 1, &arg, &spoil);
        ok = push_pairs(p, &arg);
        if (is_op(p, ","))
            advance(p);
    }
    while (ok && p->st == GD_OK && p->tok.kind == T_NAME && peek_op(p, "=")) {
        const char *key =
            gd_arena_strndup(p->f->arena, p->data + p->tok.start, p->tok.end - p->tok.start);
        if (!key) {
            fail(p, GD_ENOMEM);
            return;
        }
        advance(p);
        advance(p);
        struct gd_pylit value;
        parse_value(p, depth + 1, &value, &spoil);
        push(p, key, &value);
        if (is_op(p, ","))
            advance(p);
    }
    if (p->st != GD_OK)
        return;
    if (!ok || spoil || !is_op(p, ")")) {
        abandon(p, base, start, v);
        return;
    }
    advance(p);
    finish(p, base, GD_PYLIT_DICT, v);
}

/* "dict(", "OrderedDict(" or "collections.OrderedDict(": true when read (as a dict or an
 * OTHER); false, with the tokens read so far consumed, when it is some other expression. */
static bool try_call(struct parser *p, size_t depth, size_t start, struct gd_pylit *v)
{
    if (is_name(p, "collections")) {
        advance(p);
        if (!is_op(p, "."))
            return false;
        advance(p);
        if (!is_name(p, "OrderedDict"))
            return false;
    }
    advance(p);
    if (!is_op(p, "("))
        return false;
    advance(p);
    parse_call(p, depth, start, v);
    return true;
}

static bool keyword_value(struct parser *p, struct gd_pylit *v)
{
    memset(v, 0, sizeof *v);
    if (is_name(p, "None")) {
        v->kind = GD_PYLIT_NONE;
    } else if (is_name(p, "True") || is_name(p, "False")) {
        v->kind = GD_PYLIT_BOOL;
        v->b = is_name(p, "True");
        v->i = v->b;
    } else {
        return false;
    }
    advance(p);
    return true;
}

/* The atom a value starts with; false when it is none of the literal forms (nothing consumed
 * unless a call's name was). */
static bool parse_atom(struct parser *p, size_t depth, size_t start, struct gd_pylit *v)
{
    if (p->tok.kind == T_STRING) {
        parse_strings(p, start, v);
    } else if (p->tok.kind == T_NUMBER) {
        parse_number(p, start, false, v);
    } else if ((is_op(p, "-") || is_op(p, "+")) && peek_number(p)) {
        bool neg = is_op(p, "-");
        advance(p);
        parse_number(p, start, neg, v);
    } else if (is_op(p, "[") || is_op(p, "(")) {
        const char *close = is_op(p, "[") ? "]" : ")";
        advance(p);
        parse_seq(p, depth, start, close, v);
    } else if (is_op(p, "{")) {
        advance(p);
        parse_dict(p, depth, start, v);
    } else if (is_name(p, "dict") || is_name(p, "OrderedDict") || is_name(p, "collections")) {
        return try_call(p, depth, start, v);
    } else {
        return keyword_value(p, v);
    }
    return true;
}

/* One value; what does not read as a literal is an OTHER of its source text. `*spoil` is set
 * when it cannot be an item of a literal display: a comprehension, "*x" or "**x". */
static void parse_value(struct parser *p, size_t depth, struct gd_pylit *v, bool *spoil)
{
    size_t start = p->tok.start;
    memset(v, 0, sizeof *v);
    if (!count_value(p))
        return;
    bool atom = false;
    if (is_op(p, "*") || is_op(p, "**"))
        *spoil = true;
    else if (depth <= GD_PYLIT_MAX_DEPTH)
        atom = parse_atom(p, depth, start, v);
    if (p->st != GD_OK)
        return;
    if (atom && value_end(p))
        return;
    /* More follows (an operator, a call, an attribute, a subscript): not a literal. */
    *spoil |= skip_expr(p);
    make_other(p, start, v);
}

/* ---- statements --------------------------------------------------------------------------- */

/* Bind the name token `t` to a NONE placeholder; the caller sets the value. */
static void bind(struct parser *p, const struct tok *t)
{
    struct gd_pylit_file *f = p->f;
    if (!count_value(p))
        return;
    const char *name = gd_arena_strndup(f->arena, p->data + t->start, t->end - t->start);
    if (!name || gd_grow((void **)&f->binds, &f->cap, f->nbinds + 1, sizeof *f->binds) != 0) {
        fail(p, GD_ENOMEM);
        return;
    }
    memset(&f->binds[f->nbinds], 0, sizeof *f->binds);
    f->binds[f->nbinds++].name = name;
}

static void set_values(struct parser *p, size_t from, const struct gd_pylit *v)
{
    for (size_t i = from; i < p->f->nbinds; i++)
        p->f->binds[i].value = *v;
}

/* Bind [from, nbinds) to an OTHER of the source text from `start`. */
static void set_other(struct parser *p, size_t from, size_t start)
{
    struct gd_pylit v;
    make_other(p, start, &v);
    if (p->st == GD_OK)
        set_values(p, from, &v);
}

/* Python's keywords: never a target, and the ones that open a compound statement. */
static const char *const keywords[] = {
    "False",   "None",   "True",  "and",   "as",     "assert",   "await", "break", "continue",
    "del",     "global", "in",    "is",    "lambda", "nonlocal", "not",   "or",    "pass",
    "raise",   "return", "yield", "async", "class",  "def",      "elif",  "else",  "except",
    "finally", "for",    "from",  "if",    "import", "try",      "while", "with"
};
#define FIRST_COMPOUND 21 /* keywords[21...]: "async" on, statements with a body */

/* -1 when the current token is no keyword; else its index in keywords[]. */
static int keyword(const struct parser *p)
{
    if (p->tok.kind != T_NAME)
        return -1;
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if (text_is(p, &p->tok, keywords[k]))
            return (int)k;
    return -1;
}

static bool target(const struct parser *p)
{
    return p->tok.kind == T_NAME && keyword(p) < 0;
}

/* The value of an assignment: one value, or a tuple without brackets ("x = 1, 2"). */
static void parse_rhs(struct parser *p, struct gd_pylit *v)
{
    size_t start = p->tok.start, base = p->sp;
    bool spoil = false;
    parse_value(p, 0, v, &spoil);
    if (p->st == GD_OK && is_op(p, ",")) {
        push(p, NULL, v);
        while (p->st == GD_OK && is_op(p, ",")) {
            advance(p);
            if (stmt_end(p))
                break;
            struct gd_pylit item;
            parse_value(p, 1, &item, &spoil);
            push(p, NULL, &item);
        }
        if (p->st == GD_OK && count_value(p))
            finish(p, base, GD_PYLIT_LIST, v);
    }
    if (p->st != GD_OK)
        return;
    if (spoil || !stmt_end(p)) {
        p->sp = base;
        skip_simple(p);
        make_other(p, start, v);
    }
}

/* "a = b = value" (the first target read): every target gets the value. */
static void parse_chain(struct parser *p, size_t from)
{
    while (target(p) && peek_op(p, "=")) {
        bind(p, &p->tok);
        advance(p);
        advance(p);
    }
    struct gd_pylit v;
    parse_rhs(p, &v);
    if (p->st == GD_OK)
        set_values(p, from, &v);
}

/* "a, b = ...": each name is bound, to no literal. */
static void parse_unpack(struct parser *p, size_t from, size_t start)
{
    while (is_op(p, ",")) {
        advance(p);
        if (is_op(p, "*"))
            advance(p);
        if (is_op(p, "="))
            break;
        if (!target(p))
            break;
        bind(p, &p->tok);
        advance(p);
    }
    if (!is_op(p, "=")) {
        p->f->nbinds = from; /* an expression statement after all */
        skip_simple(p);
        return;
    }
    skip_simple(p);
    set_other(p, from, start);
}

static bool augmented(const struct parser *p)
{
    static const char *const ops[] = { "+=", "-=", "*=", "/=",  "//=", "%=", "@=",
                                       "&=", "|=", "^=", ">>=", "<<=", "**=" };
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        if (is_op(p, ops[k]))
            return true;
    return false;
}

/* A simple statement starting with a name that is no keyword. */
static void parse_assign(struct parser *p)
{
    size_t from = p->f->nbinds, start = p->tok.start;
    struct tok name = p->tok;
    advance(p);
    if (is_op(p, "=")) {
        bind(p, &name);
        advance(p);
        parse_chain(p, from);
    } else if (is_op(p, ":")) {
        /* "NAME: annotation = value"; an annotation alone binds nothing. */
        while (!stmt_end(p) && !(is_op(p, "=") && p->tok.depth == 0))
            advance(p);
        if (!is_op(p, "="))
            return;
        bind(p, &name);
        advance(p);
        struct gd_pylit v;
        parse_rhs(p, &v);
        if (p->st == GD_OK)
            set_values(p, from, &v);
    } else if (is_op(p, ",")) {
        bind(p, &name);
        parse_unpack(p, from, start);
    } else if (augmented(p)) {
        bind(p, &name);
        skip_simple(p);
        set_other(p, from, start);
    } else {
        skip_simple(p);
    }
}

/* "import a.b as c, d" and "from m import (x, y as z)": the names bound, to no literal. */
static void parse_import(struct parser *p)
{
    size_t from = p->f->nbinds, start = p->tok.start;
    bool from_form = is_name(p, "from");
    advance(p);
    if (from_form) {
        while (!stmt_end(p) && !is_name(p, "import"))
            advance(p);
        if (!is_name(p, "import")) {
            set_other(p, from, start);
            return;
        }
        advance(p);
        if (is_op(p, "("))
            advance(p);
    }
    while (target(p)) {
        struct tok bound = p->tok;
        advance(p);
        while (!from_form && is_op(p, ".") && (advance(p), p->tok.kind == T_NAME))
            advance(p); /* "import a.b.c" binds "a" */
        if (is_name(p, "as")) {
            advance(p);
            if (!target(p))
                break;
            bound = p->tok;
            advance(p);
        }
        bind(p, &bound);
        if (!is_op(p, ","))
            break;
        advance(p);
    }
    skip_simple(p);
    set_other(p, from, start);
}

/* "def NAME", "class NAME", "async def NAME": the name is bound, to no literal; the rest of
 * the line (a body on the same line) is skipped with it. */
static void parse_def(struct parser *p)
{
    size_t from = p->f->nbinds, start = p->tok.start;
    if (is_name(p, "async"))
        advance(p);
    if (is_name(p, "def") || is_name(p, "class")) {
        advance(p);
        if (target(p)) {
            bind(p, &p->tok);
            advance(p);
            set_other(p, from, start);
        }
    }
    skip_line(p);
}

static void parse_simple(struct parser *p)
{
    int kw = keyword(p);
    if (is_name(p, "import") || is_name(p, "from"))
        parse_import(p);
    else if (is_name(p, "def") || is_name(p, "class") || is_name(p, "async"))
        parse_def(p);
    else if (kw >= FIRST_COMPOUND || is_op(p, "@"))
        skip_line(p); /* compound statements (their body too, if on the line) and decorators */
    else if (kw < 0 && p->tok.kind == T_NAME)
        parse_assign(p);
    else
        skip_simple(p);
}

/* One logical line that starts in column 0: simple statements separated by ';'. A line that
 * holds an error token binds nothing. */
static void parse_line(struct parser *p)
{
    size_t nbinds = p->f->nbinds;
    p->line_error = p->tok.kind == T_ERROR;
    for (;;) {
        parse_simple(p);
        if (p->st != GD_OK)
            return;
        if (!is_op(p, ";"))
            break;
        advance(p);
        if (line_end(p))
            break;
    }
    skip_line(p);
    if (p->line_error)
        p->f->nbinds = nbinds;
}

enum gd_status gd_pylit_parse(const char *data, size_t len, struct gd_pylit_file **out)
{
    *out = NULL;
    if (len > GD_PYLIT_MAX_FILE)
        return GD_ELIMIT;
    struct gd_pylit_file *f = gd_calloc(1, sizeof *f);
    if (!f)
        return GD_ENOMEM;
    f->arena = gd_arena_new();
    if (!f->arena) {
        gd_free(f);
        return GD_ENOMEM;
    }
    struct parser p;
    memset(&p, 0, sizeof p);
    p.data = data;
    p.f = f;
    p.lx = (struct lexer){ .p = data, .n = len, .line = 1, .line_start = true };
    advance(&p);
    while (p.st == GD_OK && p.tok.kind != T_END) {
        if (p.tok.kind == T_NEWLINE)
            advance(&p);
        else if (p.tok.indented)
            skip_line(&p);
        else
            parse_line(&p);
    }
    gd_free(p.stack);
    if (p.st != GD_OK) {
        gd_pylit_free(f);
        return p.st;
    }
    *out = f;
    return GD_OK;
}

/* ---- lookups ------------------------------------------------------------------------------ */

const struct gd_pylit *gd_pylit_get(const struct gd_pylit_file *f, const char *name)
{
    if (!f || !name)
        return NULL;
    for (size_t i = f->nbinds; i-- > 0;)
        if (strcmp(f->binds[i].name, name) == 0)
            return &f->binds[i].value;
    return NULL;
}

const struct gd_pylit *gd_pylit_key(const struct gd_pylit *dict, const char *key)
{
    if (!dict || !key || dict->kind != GD_PYLIT_DICT)
        return NULL;
    for (size_t i = dict->n; i-- > 0;)
        if (strcmp(dict->keys[i], key) == 0)
            return &dict->items[i];
    return NULL;
}

const char *gd_pylit_str(const struct gd_pylit *value)
{
    return value && value->kind == GD_PYLIT_STR ? value->s : NULL;
}

size_t gd_pylit_count(const struct gd_pylit_file *f)
{
    return f ? f->nbinds : 0;
}

const char *gd_pylit_binding(const struct gd_pylit_file *f, size_t i, const struct gd_pylit **value)
{
    if (!f || i >= f->nbinds)
        return NULL;
    if (value)
        *value = &f->binds[i].value;
    return f->binds[i].name;
}

size_t gd_pylit_error_line(const struct gd_pylit_file *f)
{
    return f ? f->error_line : 0;
}

void gd_pylit_free(struct gd_pylit_file *f)
{
    if (!f)
        return;
    gd_free(f->binds);
    gd_arena_free(f->arena);
    gd_free(f);
}
