// galloc-model-place-regex.c: -ot's patterns, ECMAScript regular expressions searched in tensor names.
//
// llama.cpp matches each -ot pattern with std::regex (ECMAScript) and std::regex_search. Whether a
// pattern matches somewhere does not depend on ECMAScript's leftmost-first or POSIX's
// leftmost-longest choice, so the pattern is translated to a POSIX extended expression and run
// by regcomp/regexec: \d \w \s (and \D \W \S outside brackets) become classes, an escaped
// character a literal, (?: a group, a lazy quantifier's '?' is dropped, a '{' that does not start
// an interval a literal. What the two do not share (backreferences, lookarounds, \b, \B) is
// refused with the pattern named rather than matched differently.

#include "galloc-error.h"
#include "galloc-model-place-impl.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

struct place_regex {
    regex_t re;
};

struct out_buf {
    char * s;
    size_t n, cap;
    bool   oom;
};

static void put(struct out_buf * o, const char * t) {
    const size_t k = strlen(t);
    if (o->n + k + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 64;
        while (o->n + k + 1 > cap) {
            cap *= 2;
        }
        char * s = realloc(o->s, cap);
        if (!s) {
            o->oom = true;
            return;
        }
        o->s = s;
        o->cap = cap;
    }
    memcpy(o->s + o->n, t, k + 1);
    o->n += k;
}

static void put_char(struct out_buf * o, char c) {
    const char t[2] = { c, '\0' };
    put(o, t);
}

// an escape's literal character (\n \t ...), or the character itself
static char escaped_literal(char c) {
    switch (c) {
        case 'n': return '\n';
        case 't': return '\t';
        case 'r': return '\r';
        case 'f': return '\f';
        case 'v': return '\v';
        default:  return c;
    }
}

// a bracket expression [...] starting at p[*i] == '['; writes its POSIX form
static bool bracket(const char * p, size_t * i, struct out_buf * o, const char ** why) {
    size_t k = *i + 1;
    bool negate = false;
    if (p[k] == '^') {
        negate = true;
        k++;
    }
    char lits[256];
    size_t n_lits = 0;
    struct out_buf body = { 0 };
    bool has_close = false, has_dash = false, has_caret = false;
    for (;;) {
        char c = p[k];
        if (c == '\0') {
            *why = "a '[' without its ']'";
            free(body.s);
            return false;
        }
        if (c == ']') {
            break; // ECMAScript: a ']' first closes the class too
        }
        char lo;
        if (c == '\\') {
            const char e = p[k + 1];
            if (e == '\0') {
                *why = "a '\\' at the end";
                free(body.s);
                return false;
            }
            k += 2;
            if (e == 'd') { put(&body, "[:digit:]"); continue; }
            if (e == 'w') { put(&body, "[:alnum:]_"); continue; }
            if (e == 's') { put(&body, "[:space:]"); continue; }
            if (e == 'D' || e == 'W' || e == 'S' || e == 'b' || e == 'B' || (e >= '0' && e <= '9')) {
                *why = "\\D, \\W, \\S, \\b or a back-reference inside [...]";
                free(body.s);
                return false;
            }
            lo = escaped_literal(e);
        } else if (c == '[' && p[k + 1] == ':') {
            *why = "a POSIX class [:...:] (ECMAScript reads it differently)";
            free(body.s);
            return false;
        } else {
            lo = c;
            k++;
        }
        // a range lo-hi
        if (p[k] == '-' && p[k + 1] != ']' && p[k + 1] != '\0') {
            char hi = p[k + 1];
            k += 2;
            if (hi == '\\') {
                if (p[k] == '\0') {
                    *why = "a '\\' at the end";
                    free(body.s);
                    return false;
                }
                hi = escaped_literal(p[k]);
                k++;
            }
            if ((unsigned char) hi < (unsigned char) lo) {
                *why = "a range out of order";
                free(body.s);
                return false;
            }
            if (lo == ']' || lo == '-' || lo == '^' || hi == ']' || hi == '-' || hi == '^' || lo == '[' || hi == '[') {
                *why = "a range ending in ']', '-', '^' or '['";
                free(body.s);
                return false;
            }
            const char r[4] = { lo, '-', hi, '\0' };
            put(&body, r);
            continue;
        }
        if (lo == ']') {
            has_close = true;
        } else if (lo == '-') {
            has_dash = true;
        } else if (lo == '^') {
            has_caret = true;
        } else if (lo == '[') {
            put(&body, "[");
        } else if (n_lits < sizeof(lits)) {
            lits[n_lits++] = lo;
        }
    }
    *i = k + 1; // past ']'
    for (size_t j = 0; j < n_lits; j++) {
        put_char(&body, lits[j]);
    }
    const bool empty = body.n == 0 && !has_close;
    if (empty && !has_dash && has_caret && !negate) {
        put(o, "\\^"); // [^] would be another thing
        free(body.s);
        return true;
    }
    if (empty && !has_dash && !has_caret) {
        *why = "an empty class [] or [^]";
        free(body.s);
        return false;
    }
    put(o, negate ? "[^" : "[");
    if (has_close) {
        put(o, "]");
    }
    if (body.s) {
        put(o, body.s);
    }
    if (has_caret) {
        put(o, "^"); // never first here: ']' or the body or '-' comes before, or it was handled above
    }
    if (has_dash) {
        put(o, "-");
    }
    put(o, "]");
    free(body.s);
    return !o->oom && !body.oom;
}

// "{m}", "{m,}", "{m,n}" at p
static bool is_interval(const char * p) {
    size_t k = 1;
    if (p[k] < '0' || p[k] > '9') {
        return false;
    }
    while (p[k] >= '0' && p[k] <= '9') {
        k++;
    }
    if (p[k] == ',') {
        k++;
        while (p[k] >= '0' && p[k] <= '9') {
            k++;
        }
    }
    return p[k] == '}';
}

static bool translate(const char * p, struct out_buf * o, const char ** why) {
    size_t i = 0;
    while (p[i] != '\0') {
        const char c = p[i];
        if (c == '\\') {
            const char e = p[i + 1];
            i += 2;
            switch (e) {
                case '\0': *why = "a '\\' at the end"; return false;
                case 'd': put(o, "[0-9]"); break;
                case 'D': put(o, "[^0-9]"); break;
                case 'w': put(o, "[[:alnum:]_]"); break;
                case 'W': put(o, "[^[:alnum:]_]"); break;
                case 's': put(o, "[[:space:]]"); break;
                case 'S': put(o, "[^[:space:]]"); break;
                case 'b': case 'B': *why = "\\b and \\B (word boundaries)"; return false;
                default:
                    if (e >= '0' && e <= '9') {
                        *why = "a back-reference";
                        return false;
                    }
                    if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z')) {
                        const char l = escaped_literal(e);
                        if (l == e) {
                            *why = "an escape ECMAScript gives a meaning this does not know (\\c, \\x, \\u, ...)";
                            return false;
                        }
                        put_char(o, l);
                    } else if (e == '^' || e == '\\') {
                        put_char(o, '\\');
                        put_char(o, e);
                    } else {
                        put_char(o, '[');
                        put_char(o, e);
                        put_char(o, ']');
                    }
            }
            continue;
        }
        if (c == '[') {
            if (!bracket(p, &i, o, why)) {
                return false;
            }
            continue;
        }
        if (c == '(' && p[i + 1] == '?') {
            if (p[i + 2] != ':') {
                *why = "a lookahead (?= or (?!";
                return false;
            }
            put(o, "(");
            i += 3;
            continue;
        }
        if (c == '{') {
            if (!is_interval(p + i)) {
                put(o, "\\{");
                i++;
                continue;
            }
            while (p[i] != '}') {
                put_char(o, p[i++]);
            }
            put_char(o, p[i++]);
            if (p[i] == '?') {
                i++; // lazy: the same matches exist
            }
            continue;
        }
        if (c == '}') {
            put(o, "\\}");
            i++;
            continue;
        }
        put_char(o, c);
        i++;
        if ((c == '*' || c == '+' || c == '?') && p[i] == '?') {
            i++; // lazy
        }
    }
    if (!o->s) {
        put(o, "");
    }
    return !o->oom;
}

struct place_regex * galloc_place_regex_new(const char * pattern, struct galloc_error * err) {
    struct out_buf o = { 0 };
    const char * why = NULL;
    if (!translate(pattern, &o, &why)) {
        free(o.s);
        if (!why) {
            galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        } else {
            galloc_fail(err, GALLOC_STATUS_DECLINED, "-ot: pattern '%.100s': %s is not supported", pattern, why);
        }
        return NULL;
    }
    struct place_regex * re = calloc(1, sizeof(*re));
    if (!re) {
        free(o.s);
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        return NULL;
    }
    const int rc = regcomp(&re->re, o.s, REG_EXTENDED | REG_NOSUB);
    free(o.s);
    if (rc != 0) {
        char msg[128];
        regerror(rc, &re->re, msg, sizeof(msg));
        free(re);
        galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ot: pattern '%.100s' is not a regular expression (%s)", pattern, msg);
        return NULL;
    }
    return re;
}

bool galloc_place_regex_search(const struct place_regex * re, const char * name) {
    return regexec(&re->re, name, 0, NULL, 0) == 0;
}

void galloc_place_regex_free(struct place_regex * re) {
    if (re) {
        regfree(&re->re);
        free(re);
    }
}
