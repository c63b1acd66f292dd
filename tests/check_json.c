/* Suite "json": the strict JSON reader and the text builder (core/base/json.h).
 * White-box: linked against the static library. */
#include "testutil.h"

#include "base/ctx.h" /* ctx->alloc */
#include "base/json.h"

#include <locale.h>
#include <math.h>
#include <string.h>

static const strata_allocator *heap(void)
{
    static strata_ctx *ctx;
    if (!ctx)
        ctx = ctx_new(0);
    return &ctx->alloc;
}

static strata_json_doc *parse(const char *text)
{
    strata_json_doc *d;
    ck_assert_msg(strata__json_parse(heap(), text, strlen(text), &d) == STRATA_OK,
                  "cannot parse: %s", text);
    return d;
}

START_TEST(test_values)
{
    strata_json_doc *d = parse(" {\"a\": [1, -0.5e-3, 123456789012, 1E2, 0], \"b\": {\"c\": true,"
                               " \"d\": false, \"e\": null}, \"s\": \"x\\\"y\\\\\\/\\b\\f\\n\\r\\t"
                               "\\u00e9\\ud83d\\ude00\xc3\xa9\", \"a\": \"last\", \"z\": [], "
                               "\"o\": {}}\n");
    const strata_json_ref root = strata__json_root(d);
    ck_assert_int_eq(strata__json_type(d, root), STRATA_JSON_OBJECT);
    ck_assert_uint_eq(strata__json_count(d, root), 6);
    /* repeated key: the last wins */
    const char *s;
    size_t len;
    ck_assert(strata__json_string(d, strata__json_get(d, root, "a"), &s, &len));
    ck_assert_str_eq(s, "last");
    const strata_json_ref a = strata__json_at(d, root, 0);
    ck_assert_uint_eq(strata__json_count(d, a), 5);
    double x;
    uint64_t u;
    ck_assert(strata__json_number(d, strata__json_at(d, a, 0), &x) && x == 1.0);
    ck_assert(strata__json_number(d, strata__json_at(d, a, 1), &x) && x == -0.5e-3);
    ck_assert(strata__json_u64(d, strata__json_at(d, a, 2), &u) && u == 123456789012ull);
    ck_assert(strata__json_u64(d, strata__json_at(d, a, 3), &u) && u == 100);
    ck_assert(!strata__json_u64(d, strata__json_at(d, a, 1), &u)); /* not an integer */
    ck_assert_int_eq(strata__json_type(d, strata__json_at(d, a, 5)), STRATA_JSON_NONE);
    const strata_json_ref b = strata__json_get(d, root, "b");
    ck_assert_int_eq(strata__json_type(d, strata__json_get(d, b, "c")), STRATA_JSON_TRUE);
    ck_assert_int_eq(strata__json_type(d, strata__json_get(d, b, "d")), STRATA_JSON_FALSE);
    ck_assert_int_eq(strata__json_type(d, strata__json_get(d, b, "e")), STRATA_JSON_NULL);
    ck_assert_int_eq(strata__json_type(d, strata__json_get(d, b, "nope")), STRATA_JSON_NONE);
    ck_assert(strata__json_string(d, strata__json_get(d, root, "s"), &s, &len));
    const char want[] = "x\"y\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\xc3\xa9";
    ck_assert_uint_eq(len, sizeof want - 1);
    ck_assert(!memcmp(s, want, len));
    ck_assert_uint_eq(strata__json_count(d, strata__json_get(d, root, "z")), 0);
    ck_assert_int_eq(strata__json_type(d, strata__json_get(d, root, "o")), STRATA_JSON_OBJECT);
    strata__json_free(d);

    /* scalars at the root, and an embedded NUL escaped */
    d = parse("\"a\\u0000b\"");
    ck_assert(strata__json_string(d, strata__json_root(d), &s, &len));
    ck_assert_uint_eq(len, 3);
    ck_assert(s[1] == '\0' && s[2] == 'b');
    strata__json_free(d);
    d = parse("-0");
    ck_assert(strata__json_number(d, strata__json_root(d), &x) && x == 0.0 && signbit(x));
    strata__json_free(d);
    /* empty containers before anything was stacked (the sanitizer build
     * once found a NULL + 0 there) */
    const char *const empty[] = {"[]", "{}", "[[],{}]"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        d = parse(empty[i]);
        ck_assert_uint_eq(strata__json_count(d, strata__json_root(d)), i < 2 ? 0 : 2);
        strata__json_free(d);
    }
}
END_TEST

static const char *const bad_docs[] = {
    "", " ", "{", "}", "[1,]", "[1 2]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":}", "01",
    "1.", ".5", "+1", "-", "1e", "1e+", "NaN", "Infinity", "-Infinity", "1e400", "tru", "nul",
    "True", "\"abc", "\"a\nb\"", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"",
    "\"\\ud83d\\u0041\"", "\"\xc0\x80\"", "\"\xed\xa0\x80\"", "\"\xf5\x80\x80\x80\"", "\"\xe2\x82\"",
    "\"\x80\"", "[1] 2", "1 ]", "[\"a\":1]", "{\"a\":1 \"b\":2}", "//x\n1", "[1,/*c*/2]", "'a'",
};

START_TEST(test_bad)
{
    const char *text = bad_docs[_i];
    strata_json_doc *d = (strata_json_doc *)1;
    ck_assert_msg(strata__json_parse(heap(), text, strlen(text), &d) == STRATA_ERR_FORMAT,
                  "accepted: %s", text);
    ck_assert_ptr_null(d);
    /* a raw NUL byte inside a string, and after the value */
    ck_assert_int_eq(strata__json_parse(heap(), "\"a\0b\"", 5, &d), STRATA_ERR_FORMAT);
    ck_assert_int_eq(strata__json_parse(heap(), "1\0", 2, &d), STRATA_ERR_FORMAT);
}
END_TEST

START_TEST(test_depth)
{
    char text[2 * (STRATA_JSON_MAX_DEPTH + 2) + 1];
    for (int depth = STRATA_JSON_MAX_DEPTH; depth <= STRATA_JSON_MAX_DEPTH + 1; depth++) {
        size_t n = 0;
        for (int i = 0; i <= depth; i++)
            text[n++] = '[';
        for (int i = 0; i <= depth; i++)
            text[n++] = ']';
        strata_json_doc *d;
        const strata_status st = strata__json_parse(heap(), text, n, &d);
        if (depth == STRATA_JSON_MAX_DEPTH) {
            ck_assert_ok(st);
            strata__json_free(d);
        } else {
            ck_assert_int_eq(st, STRATA_ERR_FORMAT);
        }
    }
}
END_TEST

/* Floats written by the builder read back as the same float, in any
 * locale; strings come back as written. */
START_TEST(test_roundtrip)
{
    const char *locales[] = {"C", "de_DE.UTF-8", "fr_FR.UTF-8"};
    for (size_t li = 0; li < sizeof locales / sizeof locales[0]; li++) {
        if (!setlocale(LC_ALL, locales[li]))
            continue; /* not installed */
        strata_jtext j;
        strata__jtext_init(&j, heap());
        strata__jtext_raw(&j, "[");
        uint32_t bits = 0x12345678u;
        enum { N = 20000 };
        static float vals[N];
        for (int i = 0; i < N; i++) {
            bits = bits * 1664525u + 1013904223u;
            float f;
            const uint32_t b = i < 8 ? (uint32_t[]){0, 0x80000000u, 1, 0x7f7fffffu, 0x00800000u,
                                                    0x3f800000u, 0xbf800001u, 0x007fffffu}[i]
                                     : bits;
            memcpy(&f, &b, 4);
            if (!isfinite(f))
                f = 1.5f;
            vals[i] = f;
            if (i)
                strata__jtext_raw(&j, ",");
            strata__jtext_float(&j, f);
        }
        strata__jtext_raw(&j, ",");
        strata__jtext_string(&j, "q\"b\\s\x01\x1f\xc3\xa9");
        strata__jtext_raw(&j, ",");
        strata__jtext_double(&j, 0.1);
        strata__jtext_raw(&j, "]");
        ck_assert(!j.nomem);
        strata_json_doc *d = parse(j.s);
        const strata_json_ref root = strata__json_root(d);
        ck_assert_uint_eq(strata__json_count(d, root), N + 2);
        for (int i = 0; i < N; i++) {
            double x;
            require(strata__json_number(d, strata__json_at(d, root, (uint32_t)i), &x),
                    "element %d", i);
            const float f = (float)x;
            require(!memcmp(&f, &vals[i], 4), "%s: %a read back as %a", locales[li],
                    (double)vals[i], (double)f);
        }
        const char *s;
        size_t len;
        ck_assert(strata__json_string(d, strata__json_at(d, root, N), &s, &len));
        ck_assert_str_eq(s, "q\"b\\s\x01\x1f\xc3\xa9");
        double x;
        ck_assert(strata__json_number(d, strata__json_at(d, root, N + 1), &x) && x == 0.1);
        strata__json_free(d);
        strata__jtext_free(&j);
    }
    setlocale(LC_ALL, "C");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("Core");
    tcase_add_test(tc, test_values);
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof bad_docs / sizeof bad_docs[0]));
    tcase_add_test(tc, test_depth);
    tcase_add_test(tc, test_roundtrip);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
