/* A table-driven command line (after git's parse-options): a program is a
 * table of commands and a table of options.  Each option entry says what
 * its argument is, where its value goes, its default, its help and which
 * commands take it; the parser, the checks between options and every
 * --help text are made from the tables, so adding an option or a command
 * touches one place (and the manual page, which tests/cli.sh checks).
 *
 * Rules the parser applies to every option:
 *  - names are exact: "--lev" is not "--levels" (no abbreviations);
 *  - "--name VALUE" or "--name=VALUE"; "-o VALUE" or "-oVALUE" for the
 *    one-letter aliases; "--" ends the options;
 *  - numbers are plain decimals: [+-]digits[.digits][e[+-]digits] for
 *    reals, [+-]digits for integers (no hex, no inf or nan, no spaces);
 *  - a value out of its range, a missing value, an unknown option, a
 *    missing operand, a needed option not given or two options that
 *    conflict are usage errors (exit 2) naming the option, the value and
 *    what is valid.
 * A later occurrence of an option replaces the earlier one. */
#ifndef STRATA_APPS_CLI_H
#define STRATA_APPS_CLI_H

#include "values.h"

#include <stdbool.h>
#include <stddef.h>

/* The program's own state, written through the option targets. */
struct job;

typedef enum cli_kind {
    CLI_FLAG,   /* no value: target bool, set true */
    CLI_INT,    /* a decimal integer in [min, max]: long long */
    CLI_REAL,   /* a decimal number in [min, max] (min excluded with
                   CLI_ABOVE_MIN): double */
    CLI_CHOICE, /* one of .choices by name: its value, int */
    CLI_STRING, /* any text, checked by .check when given: const char * */
    CLI_LEVELS, /* A,B,...: at most max strictly ascending numbers that fit
                   a float: cli_floats */
    CLI_CURVE,  /* X:Y,...: two or more points in [0,1]^2, X strictly
                   ascending: cli_curve */
    CLI_VEC3,   /* X,Y,Z: float[3] */
    CLI_HELP    /* print the command's help and exit 0: no target */
} cli_kind;

/* Flags of an option. */
#define CLI_ABOVE_MIN 1u /* CLI_REAL: the value must be > min, not >= */
#define CLI_REQUIRED 2u  /* the command fails without it */
#define CLI_OPTIONAL_VALUE 4u /* the value only as --name=VALUE: a bare --name
                                 sets .mark and leaves the target "not
                                 given" (shown as --name[=ARG]) */

typedef struct cli_choice {
    const char *name;
    int value;
} cli_choice;

typedef struct cli_option {
    const char *name;  /* the long name, without "--" */
    char alias;        /* a one-letter alias (-o), or 0 */
    cli_kind kind;
    const char *arg;   /* the value's name in --help and messages: "N" */
    void *target;      /* where the value goes; its type follows kind */
    bool *mark;        /* set true when the option is given; NULL: none */
    double min, max;   /* CLI_INT, CLI_REAL: the valid range */
    unsigned flags;    /* CLI_ABOVE_MIN, CLI_REQUIRED */
    const cli_choice *choices; /* CLI_CHOICE: ends with a NULL name */
    /* CLI_STRING: NULL if arg is valid, else what is wrong with it */
    const char *(*check)(const char *arg);
    /* The default, applied as if given before the command line (so --help
     * shows the value used).  Without one, an option of kind CLI_REAL
     * leaves NAN in its target, CLI_INT -1, any other kind zero: "not
     * given", resolved when running; def_text then says what happens. */
    const char *def;
    const char *def_text;
    const char *help;      /* what the option does (NULL: the range says it) */
    const char *note;      /* more, after the range and default ("; ...") */
    const char *needs;     /* an option it needs (long name; "a|b": one of), or NULL */
    const char *conflicts; /* an option it cannot be used with, or NULL */
    unsigned commands;     /* bit i: command i of the program takes it */
    int group;             /* its section of --help */
} cli_option;

typedef struct cli_command {
    const char *name;
    const char *summary;  /* one line, in the program's --help */
    const char *usage;    /* the arguments after "strata NAME" */
    const char *about;    /* the paragraph under the usage line */
    const char *operand;  /* what the one positional argument is
                             ("input mesh"), NULL: none is taken */
    const char **operand_target;
    void (*check)(struct job *); /* checks no table entry can express */
    int (*run)(struct job *);
    /* A command that parses its own arguments (strata bench): called with
     * argv from the command's name, instead of the option table. */
    int (*main)(int argc, char **argv);
} cli_command;

typedef struct cli_program {
    const char *name;    /* "strata" */
    const char *summary; /* one line, in --help */
    const char *version; /* printed by --version */
    const cli_command *commands;
    size_t ncommands;
    const cli_option *options; /* in the order of --help */
    size_t noptions;
    const char *const *groups; /* the section titles of --help, by group */
} cli_program;

/* Parse argv: the command (argv[1]), then its options.  The program's
 * own options are handled here and exit: -h/--help/help (the list of
 * commands), -V/--version, and the hidden "help --options", which prints
 * "COMMAND --OPTION" for every option of every command (for tests).
 * Applies the defaults of the command's options, parses, checks
 * required, needed and conflicting options, then calls the command's
 * check.  Exits 2 on a usage error.  Returns the command. */
const cli_command *cli_parse(const cli_program *p, struct job *job, int argc, char **argv);

/* The value an option of the parsed command was given ("" for a flag),
 * or NULL when it was not given. */
const char *cli_given(const char *name);

/* The options of the parsed command given on its line, in their order,
 * as "--name=VALUE" ("--name" for flags and options given bare), those
 * named in skip (NULL-terminated long names, or NULL) left out, into
 * out[0..cap) (malloc'ed strings): their count.  For running the same
 * command again with other outputs ('strata sculpt' exports). */
size_t cli_given_args(const char *const *skip, char **out, size_t cap);

#endif
