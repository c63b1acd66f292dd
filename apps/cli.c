/* The table-driven command line: parsing, checks and generated help. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cli.h"
#include "fail.h"
#include "values.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parse in progress (one per run of the program). */
static struct {
    const cli_program *p;
    const cli_command *cmd;
    unsigned bit;       /* the command's bit in cli_option.commands */
    const char **given; /* by option index: its value, NULL: not given */
    int *order;         /* by option index: position on the line */
} g;

static bool takes(const cli_option *o) { return (o->commands & g.bit) != 0; }

static bool has_value(const cli_option *o) { return o->kind != CLI_FLAG && o->kind != CLI_HELP; }

/* The option of the command with this long name, or NULL. */
static const cli_option *find(const char *name, size_t len)
{
    for (size_t i = 0; i < g.p->noptions; i++) {
        const cli_option *o = &g.p->options[i];
        if (takes(o) && strlen(o->name) == len && !strncmp(o->name, name, len))
            return o;
    }
    return NULL;
}

static const cli_option *find_alias(char c)
{
    for (size_t i = 0; i < g.p->noptions; i++)
        if (takes(&g.p->options[i]) && g.p->options[i].alias == c)
            return &g.p->options[i];
    return NULL;
}

/* ------------------------------------------------------------ text */

/* A bound as people write it: 1e9, not 1e+09. */
static void fmt_num(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%g", v);
    char *e = strchr(buf, 'e');
    if (!e)
        return;
    char *d = e + 1 + (e[1] == '-'); /* the exponent's digits (or its '+') */
    char *from = d + (*d == '+');
    while (*from == '0' && from[1])
        from++;
    memmove(d, from, strlen(from) + 1);
}

/* What values are valid, for --help and messages: "0..13",
 * "0 < F <= 1e9", "grid or polygon"; "" when the help says it. */
static void range_text(const cli_option *o, char *buf, size_t size)
{
    char lo[32], hi[32];
    buf[0] = '\0';
    switch (o->kind) {
    case CLI_INT: snprintf(buf, size, "%.0f..%.0f", o->min, o->max); break;
    case CLI_REAL:
        fmt_num(lo, sizeof lo, o->min);
        fmt_num(hi, sizeof hi, o->max);
        snprintf(buf, size, "%s %s %s <= %s", lo, o->flags & CLI_ABOVE_MIN ? "<" : "<=", o->arg,
                 hi);
        break;
    case CLI_CHOICE: {
        size_t n = 0;
        while (o->choices[n].name)
            n++;
        for (size_t i = 0; i < n; i++)
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", o->choices[i].name,
                     i + 2 < n ? ", " : i + 1 < n ? " or " : "");
        break;
    }
    default: break;
    }
}

/* "--level L", "-o, --output FILE": the option as --help lists it. */
static void label(const cli_option *o, char *buf, size_t size)
{
    int n = o->alias ? snprintf(buf, size, "-%c, ", o->alias) : 0;
    if (o->flags & CLI_OPTIONAL_VALUE)
        snprintf(buf + n, size - (size_t)n, "--%s[=%s]", o->name, o->arg);
    else
        snprintf(buf + n, size - (size_t)n, "--%s%s%s", o->name, has_value(o) ? " " : "",
                 has_value(o) ? o->arg : "");
}

/* Print text from column `col` (where the cursor is) wrapped at 79
 * columns, continuation lines indented by `indent`. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *w = p;
        while (*p && *p != ' ')
            p++;
        const int len = (int)(p - w);
        if (len == 0)
            break;
        if (col > indent && col + 1 + len > 79) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(w, 1, (size_t)len, f);
        col += len;
    }
    fputc('\n', f);
}

#define HELP_COLUMN 23 /* where option descriptions start */

static void print_option(FILE *f, const cli_option *o)
{
    char lab[64], range[160], text[1024];
    label(o, lab, sizeof lab);
    range_text(o, range, sizeof range);
    const char *help = o->help ? o->help : "";
    snprintf(text, sizeof text, "%s%s%s", help,
             !range[0] || !help[0] ? "" : o->kind == CLI_CHOICE ? ": " : ", ", range);
    if (o->def_text) /* words */
        snprintf(text + strlen(text), sizeof text - strlen(text), " (default: %s)", o->def_text);
    else if (o->def) /* a value */
        snprintf(text + strlen(text), sizeof text - strlen(text), " (default %s)", o->def);
    if (o->flags & CLI_REQUIRED)
        snprintf(text + strlen(text), sizeof text - strlen(text), " (required)");
    if (o->note)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s", o->note);
    int col = fprintf(f, "  %s", lab);
    if (col + 2 > HELP_COLUMN) {
        fputc('\n', f);
        col = 0;
    }
    fprintf(f, "%*s", HELP_COLUMN - col, "");
    wrap(f, text, HELP_COLUMN, HELP_COLUMN);
}

static void print_command_help(FILE *f)
{
    const cli_program *p = g.p;
    const cli_command *c = g.cmd;
    fprintf(f, "Usage: %s %s%s%s\n%s", p->name, c->name, c->usage[0] ? " " : "", c->usage,
            c->about);
    for (int grp = 0; p->groups[grp]; grp++) {
        bool title = false;
        for (size_t i = 0; i < p->noptions; i++) {
            const cli_option *o = &p->options[i];
            if (!takes(o) || o->group != grp)
                continue;
            if (!title)
                fprintf(f, "\n%s:\n", p->groups[grp]);
            title = true;
            print_option(f, o);
        }
    }
}

static void print_program_help(const cli_program *p)
{
    printf("Usage: %s COMMAND [OPTIONS]\n%s\n\nCommands:\n", p->name, p->summary);
    for (size_t i = 0; i < p->ncommands; i++)
        printf("  %-9s %s\n", p->commands[i].name, p->commands[i].summary);
    printf("\n'%s COMMAND --help' lists the options of a command.\n"
           "\n  -h, --help       show this help\n"
           "  -V, --version    show the version\n",
           p->name);
}

/* "help --options": every option of every command, one per line. */
static void print_option_list(const cli_program *p)
{
    for (size_t c = 0; c < p->ncommands; c++)
        for (size_t i = 0; i < p->noptions; i++)
            if (p->options[i].commands & 1u << c)
                printf("%s --%s\n", p->commands[c].name, p->options[i].name);
}

/* ------------------------------------------------------------ values */

/* Store the value s of option o, spelled `opt` on the command line. */
static void set_value(const cli_option *o, const char *opt, const char *s)
{
    char range[160];
    range_text(o, range, sizeof range);
    value_status st = VALUE_OK; /* of the kinds parsed in values.c */
    char *why = NULL;
    switch (o->kind) {
    case CLI_FLAG: *(bool *)o->target = true; break;
    case CLI_INT:
        st = value_int(opt, s, (long long)o->min, (long long)o->max, range, o->target, &why);
        break;
    case CLI_REAL:
        st = value_real(opt, s, o->min, o->max, o->flags & CLI_ABOVE_MIN, range, o->target,
                        &why);
        break;
    case CLI_CHOICE:
        for (const cli_choice *c = o->choices; c->name; c++)
            if (!strcmp(s, c->name)) {
                *(int *)o->target = c->value;
                return;
            }
        usage_error("%s %s: expected %s", opt, s, range);
    case CLI_STRING: {
        if (!*s)
            usage_error("%s: empty value (expected %s)", opt, o->arg);
        const char *wrong = o->check ? o->check(s) : NULL;
        if (wrong)
            usage_error("%s %s: %s", opt, s, wrong);
        *(const char **)o->target = s;
        break;
    }
    case CLI_LEVELS: st = value_levels(opt, s, (size_t)o->max, o->target, &why); break;
    case CLI_CURVE: st = value_curve(opt, s, o->target, &why); break;
    case CLI_VEC3: st = value_vec3(opt, s, o->target, &why); break;
    case CLI_HELP: break;
    }
    if (st == VALUE_NOMEM)
        die(EXIT_RUNTIME, "out of memory");
    if (st != VALUE_OK)
        usage_error("%s", why);
}

/* Before the command line: the defaults, or "not given". */
static void set_default(const cli_option *o)
{
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", o->name);
    if (o->def)
        set_value(o, opt, o->def);
    else if (o->kind == CLI_REAL)
        *(double *)o->target = NAN;
    else if (o->kind == CLI_INT)
        *(long long *)o->target = -1;
}

/* ------------------------------------------------------------ parsing */

/* An option name the command does not know: say what it may have meant.
 * Names are never abbreviated, so "--level" is not "--levels". */
static _Noreturn void unknown_option(const char *word, const char *name, size_t len)
{
    const cli_program *p = g.p;
    char longer[256] = "", other[128] = "";
    for (size_t i = 0; i < p->noptions; i++) {
        const cli_option *o = &p->options[i];
        if (takes(o) && strlen(o->name) > len && !strncmp(o->name, name, len))
            snprintf(longer + strlen(longer), sizeof longer - strlen(longer), "%s--%s",
                     longer[0] ? " or " : "", o->name);
    }
    for (size_t i = 0; i < p->noptions && !other[0]; i++) {
        const cli_option *o = &p->options[i];
        const bool same = strlen(o->name) == len && !strncmp(o->name, name, len);
        for (size_t c = 0; c < p->ncommands && !takes(o) && same; c++)
            if (o->commands & 1u << c) {
                snprintf(other, sizeof other, "--%s is an option of '%s %s'", o->name,
                         p->name, p->commands[c].name);
                break;
            }
    }
    if (longer[0])
        usage_error("unknown option '%s' for '%s %s': did you mean %s? (names are never "
                    "abbreviated%s%s)",
                    word, p->name, g.cmd->name, longer, other[0] ? "; " : "", other);
    if (other[0])
        usage_error("unknown option '%s' for '%s %s' (%s)", word, p->name, g.cmd->name, other);
    usage_error("unknown option '%s' (see '%s %s --help')", word, p->name, g.cmd->name);
}

static void given(const cli_option *o, const char *value, int pos)
{
    const size_t i = (size_t)(o - g.p->options);
    g.given[i] = value;
    g.order[i] = pos;
    if (o->mark)
        *o->mark = true;
}

const char *cli_given(const char *name)
{
    const cli_option *o = find(name, strlen(name));
    return o ? g.given[o - g.p->options] : NULL;
}

size_t cli_given_args(const char *const *skip, char **out, size_t cap)
{
    size_t n = 0;
    for (int pos = 0; pos < 1 << 20 && n < cap; pos++) {
        bool any = false;
        for (size_t i = 0; i < g.p->noptions; i++) {
            const cli_option *o = &g.p->options[i];
            if (!g.given[i] || g.order[i] < pos)
                continue;
            any = true;
            if (g.order[i] != pos || o->kind == CLI_HELP)
                continue;
            bool dropped = false;
            for (size_t k = 0; skip && skip[k] && !dropped; k++)
                dropped = !strcmp(skip[k], o->name);
            if (dropped)
                continue;
            const char *v = g.given[i];
            const size_t len = strlen(o->name) + strlen(v) + 4;
            if (!(out[n] = malloc(len)))
                die(EXIT_RUNTIME, "out of memory");
            snprintf(out[n++], len, "--%s%s%s", o->name,
                     o->kind == CLI_FLAG || (!v[0] && o->flags & CLI_OPTIONAL_VALUE) ? "" : "=",
                     o->kind == CLI_FLAG ? "" : v);
        }
        if (!any)
            break;
    }
    return n;
}

/* "--view top", "--normals": an option as given, for messages. */
static void as_given(const cli_option *o, char *buf, size_t size)
{
    const char *v = g.given[o - g.p->options];
    snprintf(buf, size, "--%s%s%s", o->name, v && v[0] ? " " : "", v ? v : "");
}

/* Required, needed and conflicting options, in table order. */

/* Whether one of the options NEEDS names ("a" or "a|b|...") was given. */
static bool needs_met(const cli_program *p, const char *needs)
{
    for (const char *s = needs; *s;) {
        const size_t len = strcspn(s, "|");
        if (g.given[find(s, len) - p->options])
            return true;
        s += len + (s[len] == '|');
    }
    return false;
}

static void check_relations(void)
{
    const cli_program *p = g.p;
    char a[256], b[256];
    for (size_t i = 0; i < p->noptions; i++) {
        const cli_option *o = &p->options[i];
        if (!takes(o))
            continue;
        if (o->flags & CLI_REQUIRED && !g.given[i]) {
            if (o->alias)
                snprintf(a, sizeof a, "-%c %s", o->alias, o->arg);
            else
                label(o, a, sizeof a);
            usage_error("missing %s (see '%s %s --help')", a, p->name, g.cmd->name);
        }
        if (!g.given[i])
            continue;
        as_given(o, a, sizeof a);
        if (o->needs && !needs_met(p, o->needs)) {
            /* "--cell-size needs --heightmap or --template" */
            size_t n = 0;
            for (const char *s = o->needs; *s && n < sizeof b - 16;) {
                const size_t len = strcspn(s, "|");
                n += (size_t)snprintf(b + n, sizeof b - n, "%s--%.*s", n ? " or " : "",
                                      (int)len, s);
                s += len + (s[len] == '|');
            }
            if (!strchr(o->needs, '|'))
                label(find(o->needs, strlen(o->needs)), b, sizeof b);
            usage_error("%s needs %s", a, b);
        }
        if (o->conflicts) {
            const cli_option *c = find(o->conflicts, strlen(o->conflicts));
            if (g.given[c - p->options]) {
                as_given(c, b, sizeof b);
                const bool first = g.order[i] < g.order[c - p->options];
                usage_error("%s and %s cannot be used together", first ? a : b, first ? b : a);
            }
        }
    }
}

const cli_command *cli_parse(const cli_program *p, struct job *job, int argc, char **argv)
{
    g.p = p;
    if (argc < 2)
        usage_error("missing command (see '%s --help')", p->name);
    const char *name = argv[1];
    if (!strcmp(name, "help") && argc > 2 && !strcmp(argv[2], "--options")) {
        print_option_list(p);
        exit(EXIT_SUCCESS);
    }
    if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
        print_program_help(p);
        exit(EXIT_SUCCESS);
    }
    if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
        printf("%s %s\n", p->name, p->version);
        exit(EXIT_SUCCESS);
    }
    for (size_t c = 0; c < p->ncommands; c++)
        if (!strcmp(name, p->commands[c].name)) {
            g.cmd = &p->commands[c];
            g.bit = 1u << c;
        }
    if (!g.cmd && name[0] == '-')
        usage_error("unknown option '%s' before the command (see '%s --help')", name, p->name);
    if (!g.cmd)
        usage_error("unknown command '%s' (see '%s --help')", name, p->name);
    if (g.cmd->main)
        return g.cmd;

    g.given = calloc(p->noptions, sizeof *g.given);
    g.order = calloc(p->noptions, sizeof *g.order);
    if (!g.given || !g.order)
        die(EXIT_RUNTIME, "out of memory");
    for (size_t i = 0; i < p->noptions; i++)
        if (takes(&p->options[i]))
            set_default(&p->options[i]);

    bool options_done = false;
    for (int i = 2; i < argc; i++) {
        const char *word = argv[i];
        const cli_option *o = NULL;
        const char *value = NULL, *opt = word;
        char spelled[64];
        if (!options_done && !strcmp(word, "--")) {
            options_done = true;
            continue;
        } else if (!options_done && word[0] == '-' && word[1] == '-') {
            const char *eq = strchr(word + 2, '=');
            const size_t len = eq ? (size_t)(eq - word - 2) : strlen(word + 2);
            if (!(o = find(word + 2, len)))
                unknown_option(word, word + 2, len);
            snprintf(spelled, sizeof spelled, "--%s", o->name);
            opt = spelled;
            if (eq && !has_value(o))
                usage_error("%s takes no value (got '%s')", opt, word);
            value = eq ? eq + 1 : NULL;
        } else if (!options_done && word[0] == '-' && word[1]) {
            if (!(o = find_alias(word[1])) || (!has_value(o) && word[2]))
                usage_error("unknown option '%s' (see '%s %s --help')", word, p->name,
                            g.cmd->name);
            snprintf(spelled, sizeof spelled, "-%c", word[1]);
            opt = spelled;
            value = word[2] ? word + 2 : NULL;
        } else {
            if (!g.cmd->operand || *g.cmd->operand_target) {
                const cli_option *prev = i > 2 && !strncmp(argv[i - 1], "--", 2)
                                             ? find(argv[i - 1] + 2, strlen(argv[i - 1] + 2))
                                             : NULL;
                if (prev && prev->flags & CLI_OPTIONAL_VALUE)
                    usage_error("unexpected argument '%s': --%s takes its value as --%s=%s "
                                "(write --%s=%s)",
                                word, prev->name, prev->name, prev->arg, prev->name, word);
                usage_error("unexpected argument '%s' (see '%s %s --help')", word, p->name,
                            g.cmd->name);
            }
            *g.cmd->operand_target = word;
            continue;
        }
        if (o->kind == CLI_HELP) {
            print_command_help(stdout);
            exit(EXIT_SUCCESS);
        }
        if (!value && o->flags & CLI_OPTIONAL_VALUE) {
            given(o, "", i); /* bare: the default, resolved when running */
            continue;
        }
        if (has_value(o) && !value) {
            if (i + 1 >= argc) {
                char range[160];
                range_text(o, range, sizeof range);
                usage_error("%s: missing value %s%s%s%s", opt, o->arg, range[0] ? " (" : "",
                            range, range[0] ? ")" : "");
            }
            value = argv[++i];
        }
        set_value(o, opt, value ? value : "");
        given(o, value ? value : "", i);
    }
    if (g.cmd->operand && !*g.cmd->operand_target)
        usage_error("missing %s (see '%s %s --help')", g.cmd->operand, p->name, g.cmd->name);
    check_relations();
    if (g.cmd->check)
        g.cmd->check(job);
    return g.cmd;
}
