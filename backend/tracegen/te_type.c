/*
 * te_type.c - argument types of trace-events: QEMU's allowed words only.
 *
 * QEMU's tracetool accepts a type made of the words int, long, short, char,
 * bool, unsigned, signed, void, the <stdint.h> fixed-size types, size_t,
 * ssize_t, uintptr_t, ptrdiff_t, 'const' and '*'.  tracetool checks each word
 * alone; here the words are also combined the way a C compiler would, so that
 * 'unsigned bool' or a plain 'void' is refused before it reaches the compiler,
 * and the result (struct te_type) tells te_format.c which conversions fit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "te.h"
#include "te_parse.h"

static const struct {
        const char *word;
        enum te_base base;
} te_type_typedefs[] = {
        { "int8_t", TE_INT8 }, { "uint8_t", TE_UINT8 },
        { "int16_t", TE_INT16 }, { "uint16_t", TE_UINT16 },
        { "int32_t", TE_INT32 }, { "uint32_t", TE_UINT32 },
        { "int64_t", TE_INT64 }, { "uint64_t", TE_UINT64 },
        { "size_t", TE_SIZE }, { "ssize_t", TE_SSIZE },
        { "uintptr_t", TE_UINTPTR }, { "ptrdiff_t", TE_PTRDIFF },
};

static const char *const te_type_keywords[] = {
        "int", "long", "short", "char", "bool", "unsigned", "signed", "void",
};

/* Returns 1 for a word QEMU allows in a type (not counting 'const'), else 0. */
int te_type_is_allowed_word(const char *word)
{
        size_t i;

        for (i = 0; i < sizeof(te_type_typedefs) / sizeof(te_type_typedefs[0]); i++)
                if (strcmp(word, te_type_typedefs[i].word) == 0)
                        return 1;
        for (i = 0; i < sizeof(te_type_keywords) / sizeof(te_type_keywords[0]); i++)
                if (strcmp(word, te_type_keywords[i]) == 0)
                        return 1;
        return 0;
}

bool te_type_is_signed(enum te_base base)
{
        switch (base) {
        case TE_CHAR: case TE_SCHAR: case TE_SHORT: case TE_INT: case TE_LONG:
        case TE_LLONG: case TE_INT8: case TE_INT16: case TE_INT32: case TE_INT64:
        case TE_SSIZE: case TE_PTRDIFF:
                return true;
        default:
                return false;
        }
}

/* Counts of the specifier words seen before the first '*'. */
struct te_type_words {
        unsigned n_signed, n_unsigned, n_short, n_long, n_char, n_int;
        unsigned n_bool, n_void, n_typedef, n_words;
        enum te_base typedef_base;
};

static int te_type_count(struct te_type_words *w, const char *word)
{
        size_t i;

        w->n_words++;
        if (strcmp(word, "signed") == 0) w->n_signed++;
        else if (strcmp(word, "unsigned") == 0) w->n_unsigned++;
        else if (strcmp(word, "short") == 0) w->n_short++;
        else if (strcmp(word, "long") == 0) w->n_long++;
        else if (strcmp(word, "char") == 0) w->n_char++;
        else if (strcmp(word, "int") == 0) w->n_int++;
        else if (strcmp(word, "bool") == 0) w->n_bool++;
        else if (strcmp(word, "void") == 0) w->n_void++;
        else {
                for (i = 0; i < sizeof(te_type_typedefs) / sizeof(te_type_typedefs[0]); i++)
                        if (strcmp(word, te_type_typedefs[i].word) == 0) {
                                w->n_typedef++;
                                w->typedef_base = te_type_typedefs[i].base;
                                return 0;
                        }
                return -EINVAL;
        }
        return 0;
}

/* The base type the words name; -EINVAL for a combination C refuses. */
static int te_type_combine(const struct te_type_words *w, enum te_base *ret_base)
{
        bool u = w->n_unsigned > 0;
        unsigned alone = w->n_bool + w->n_void + w->n_typedef;

        if (w->n_words == 0 || w->n_signed + w->n_unsigned > 1)
                return -EINVAL;
        if (alone > 0) {
                if (alone != 1 || w->n_words != 1)
                        return -EINVAL;
                *ret_base = w->n_bool ? TE_BOOL : w->n_void ? TE_VOID : w->typedef_base;
                return 0;
        }
        if (w->n_int > 1 || w->n_char > 1 || w->n_short > 1 || w->n_long > 2 ||
            (w->n_char && (w->n_int || w->n_short || w->n_long)) ||
            (w->n_short && w->n_long))
                return -EINVAL;
        if (w->n_char)
                *ret_base = u ? TE_UCHAR : w->n_signed ? TE_SCHAR : TE_CHAR;
        else if (w->n_short)
                *ret_base = u ? TE_USHORT : TE_SHORT;
        else if (w->n_long == 2)
                *ret_base = u ? TE_ULLONG : TE_LLONG;
        else if (w->n_long == 1)
                *ret_base = u ? TE_ULONG : TE_LONG;
        else
                *ret_base = u ? TE_UINT : TE_INT;
        return 0;
}

static bool te_type_is_word_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9') || c == '_';
}

/* Append TEXT (LEN bytes) to the spelling being built in *S. */
static int te_type_append(char **s, size_t *len, const char *text, size_t n)
{
        char *p = realloc(*s, *len + n + 1);

        if (!p)
                return -ENOMEM;
        memcpy(p + *len, text, n);
        *len += n;
        p[*len] = '\0';
        *s = p;
        return 0;
}

/*
 * Parse the type spelled in LINE[START, END) into *RET_TYPE.  Errors are
 * reported through CTX with their column.  Returns 0, -EINVAL after reporting,
 * or -ENOMEM; *RET_TYPE is untouched on failure.
 */
int te_type_parse(struct te_parse_ctx *ctx, const char *line, size_t start, size_t end,
                  struct te_type *ret_type)
{
        struct te_type_words w = { 0 };
        char *spell = NULL, word[64];
        size_t len = 0, i = start, n;
        unsigned ptr = 0, nconst = 0;
        enum te_base base;
        int r = 0;

        while (i < end) {
                if (line[i] == ' ' || line[i] == '\t') {
                        i++;
                        continue;
                }
                if (line[i] == '*') {
                        r = te_type_append(&spell, &len, ptr ? "*" : " *", ptr ? 1 : 2);
                        if (r < 0)
                                goto out;
                        ptr++;
                        nconst = 0;
                        i++;
                        continue;
                }
                if (!te_type_is_word_char(line[i])) {
                        r = te_parse_error(ctx, i, "unexpected character '%c' in type", line[i]);
                        goto out;
                }
                for (n = i; n < end && te_type_is_word_char(line[n]); n++)
                        ;
                if (n - i >= sizeof(word)) {
                        r = te_parse_error(ctx, i, "unknown type '%.*s'", (int)(n - i), line + i);
                        goto out;
                }
                memcpy(word, line + i, n - i);
                word[n - i] = '\0';
                if (strcmp(word, "const") == 0) {
                        if (++nconst > 1) {
                                r = te_parse_error(ctx, i, "duplicate 'const'");
                                goto out;
                        }
                } else if (ptr > 0) {
                        r = te_parse_error(ctx, i, "unexpected '%s' after '*' in type", word);
                        goto out;
                } else if (te_type_count(&w, word) < 0) {
                        r = te_parse_error(ctx, i, "unknown type '%s'", word);
                        goto out;
                }
                if (len > 0 && spell[len - 1] != ' ') {
                        r = te_type_append(&spell, &len, " ", 1);
                        if (r < 0)
                                goto out;
                }
                r = te_type_append(&spell, &len, word, n - i);
                if (r < 0)
                        goto out;
                i = n;
        }
        if (te_type_combine(&w, &base) < 0) {
                r = te_parse_error(ctx, start, "invalid type '%s'", spell ? spell : "");
                goto out;
        }
        if (base == TE_VOID && ptr == 0) {
                r = te_parse_error(ctx, start, "'void' is only allowed behind a pointer ('void *')");
                goto out;
        }
        ret_type->base = base;
        ret_type->ptr = ptr;
        ret_type->spelling = spell;
        spell = NULL;
out:
        free(spell);
        return r;
}
