/* SPDX-License-Identifier: MIT */
/* The REPL engine on libedit (BSD licensed; GNU readline's GPL-3 would not mix
 * with Unicorn's GPL-2). */
#include <histedit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chainsim/file.h"
#include "chainsim/repl.h"

struct cs_repl {
	cs_repl_config cfg;
	EditLine *el;
	History *hist;
	HistEvent ev;
};

cs_repl *cs_repl_new(const cs_repl_config *cfg)
{
	cs_repl *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->cfg = *cfg;
	if (!r->cfg.prompt)
		r->cfg.prompt = "> ";
	if (!r->cfg.prog)
		r->cfg.prog = "chainsim";
	return r;
}

void cs_repl_free(cs_repl *r)
{
	if (!r)
		return;
	if (r->el)
		el_end(r->el);
	if (r->hist)
		history_end(r->hist);
	free(r);
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

cs_status cs_repl_line(cs_repl *r, const char *line, bool echo, FILE *out, bool *quit, cs_diag *d)
{
	char buf[4096];
	size_t n = strlen(line);
	if (n >= sizeof(buf)) {
		cs_diag_set(d, CS_ERR_INPUT, "line longer than %zu characters", sizeof(buf) - 1);
		return CS_ERR_INPUT;
	}
	memcpy(buf, line, n + 1);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = 0;
	const char *s = skip_ws(buf);
	if (!*s || *s == '#')
		return CS_OK;
	if (echo) {
		fputs(r->cfg.prompt, out);
		fwrite(s, 1, n - (size_t)(s - buf), out);
		fputc('\n', out);
	}
	if (!strcmp(s, "quit") || !strcmp(s, "exit") || !strcmp(s, "q")) {
		if (quit)
			*quit = true;
		return CS_OK;
	}
	size_t word = strcspn(s, " \t");
	if ((word == 4 && (!strncmp(s, "quit", 4) || !strncmp(s, "exit", 4))) || (word == 1 && *s == 'q')) {
		cs_diag_set(d, CS_ERR_INPUT, "%.*s takes no arguments (got '%s')", (int)word, s, skip_ws(s + word));
		return CS_ERR_INPUT;
	}
	if (!strncmp(s, "echo", 4) && (s[4] == 0 || s[4] == ' ')) {
		fprintf(out, "%s\n", skip_ws(s + 4));
		return CS_OK;
	}
	if (!strcmp(s, "help") && r->cfg.commands && !r->cfg.own_help) {
		fprintf(out, "commands:");
		for (size_t i = 0; r->cfg.commands[i]; i++)
			fprintf(out, " %s", r->cfg.commands[i]);
		fprintf(out, "\n");
		return CS_OK;
	}
	return r->cfg.exec(r->cfg.ctx, s, out, d);
}

cs_status cs_repl_script(cs_repl *r, const char *path, FILE *out, cs_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	if (!cs_file_read(path, CS_FILE_MAX_TEXT, "the script", &text, &len, d))
		return d && d->status ? d->status : CS_ERR_INPUT;
	cs_status st = CS_OK;
	bool quit = false;
	uint32_t lineno = 0;
	for (size_t at = 0; !quit && at < len;) {
		const char *line = text + at;
		const char *nl = memchr(line, '\n', len - at);
		size_t n = nl ? (size_t)(nl - line) : len - at;
		at += n + (nl != NULL);
		lineno++;
		/* a NUL would end the line early and hide the rest of it */
		const char *nul = memchr(line, 0, n);
		if (nul) {
			cs_diag_at_text(d, CS_ERR_INPUT, cs_file_name(path), lineno, (uint32_t)(nul - line) + 1,
					"a NUL byte: a script is text");
			st = CS_ERR_INPUT;
			break;
		}
		char *one = strndup(line, n);
		if (!one) {
			cs_diag_set(d, CS_ERR_NOMEM, "out of memory reading the script");
			st = CS_ERR_NOMEM;
			break;
		}
		cs_diag sub;
		cs_diag_clear(&sub);
		st = cs_repl_line(r, one, true, out, &quit, &sub);
		free(one);
		if (st != CS_OK) {
			cs_diag_at_text(d, st, cs_file_name(path), lineno, 1, "%s", sub.msg);
			break;
		}
	}
	/* once, not per line: a write per command cost a tenth of a `step` */
	fflush(out);
	free(text);
	return st;
}

cs_status cs_repl_ex(cs_repl *r, const char *const *cmds, size_t n, FILE *out, bool *quit,
		     cs_diag *d)
{
	cs_status st = CS_OK;
	*quit = false;
	for (size_t i = 0; i < n && !*quit && st == CS_OK; i++) {
		cs_diag sub;
		cs_diag_clear(&sub);
		st = cs_repl_line(r, cmds[i], true, out, quit, &sub);
		if (st != CS_OK)
			cs_diag_at_text(d, st, "-ex", (uint32_t)i + 1, 1, "%s", sub.msg);
	}
	fflush(out);
	return st;
}

static void collect(const char *w, const char *prefix, size_t plen, const char **best, size_t *common,
		    size_t *count, void (*emit)(const char *, void *), void *arg)
{
	if (strncmp(w, prefix, plen))
		return;
	if (emit)
		emit(w, arg);
	if (!*best) {
		*best = w;
		*common = strlen(w);
	} else {
		size_t k = 0;
		while (k < *common && w[k] == (*best)[k])
			k++;
		*common = k;
	}
	(*count)++;
}

size_t cs_repl_complete(cs_repl *r, const char *line, void (*emit)(const char *word, void *arg), void *arg)
{
	const char *start = line + strlen(line);
	while (start > line && start[-1] != ' ' && start[-1] != '\t')
		start--;
	bool first = skip_ws(line) == start;
	size_t plen = strlen(start), common = 0, count = 0;
	const char *best = NULL;
	if (first) {
		for (size_t i = 0; r->cfg.commands && r->cfg.commands[i]; i++)
			collect(r->cfg.commands[i], start, plen, &best, &common, &count, emit, arg);
	} else if (r->cfg.words) {
		const char *w;
		for (size_t i = 0; (w = r->cfg.words(r->cfg.ctx, i)) != NULL; i++)
			collect(w, start, plen, &best, &common, &count, emit, arg);
	}
	return count;
}

static char *prompt_fn(EditLine *el)
{
	cs_repl *r = NULL;
	el_get(el, EL_CLIENTDATA, &r);
	return (char *)(r ? r->cfg.prompt : "> ");
}

struct complete_state {
	const char *first;
	size_t common;
	size_t count;
	FILE *out;
};

static void complete_emit(const char *w, void *arg)
{
	struct complete_state *c = arg;
	if (!c->first) {
		c->first = w;
		c->common = strlen(w);
	} else {
		size_t k = 0;
		while (k < c->common && w[k] == c->first[k])
			k++;
		c->common = k;
	}
	c->count++;
}

static void list_emit(const char *w, void *arg)
{
	fprintf(((struct complete_state *)arg)->out, "%s  ", w);
}

static unsigned char complete_fn(EditLine *el, int ch)
{
	(void)ch;
	cs_repl *r = NULL;
	el_get(el, EL_CLIENTDATA, &r);
	const LineInfo *li = el_line(el);
	size_t len = (size_t)(li->cursor - li->buffer);
	char *line = malloc(len + 1);
	if (!line)
		return CC_ERROR;
	memcpy(line, li->buffer, len);
	line[len] = 0;
	const char *start = line + len;
	while (start > line && start[-1] != ' ' && start[-1] != '\t')
		start--;
	size_t plen = strlen(start);
	struct complete_state c = { NULL, 0, 0, stdout };
	cs_repl_complete(r, line, complete_emit, &c);
	unsigned char ret = CC_REFRESH;
	if (c.count == 1) {
		char add[256];
		snprintf(add, sizeof(add), "%s ", c.first + plen);
		el_insertstr(el, add);
	} else if (c.count > 1 && c.common > plen) {
		char add[256];
		size_t k = c.common - plen < sizeof(add) - 1 ? c.common - plen : sizeof(add) - 1;
		memcpy(add, c.first + plen, k);
		add[k] = 0;
		el_insertstr(el, add);
	} else if (c.count > 1) {
		fputc('\n', stdout);
		cs_repl_complete(r, line, list_emit, &c);
		fputc('\n', stdout);
		ret = CC_REDISPLAY;
	} else
		ret = CC_ERROR;
	free(line);
	return ret;
}

/* One line of an interactive session: its error, if any, on err; 1 when it
 * failed, else 0. */
static int run_typed_line(cs_repl *r, const char *line, bool echo, FILE *out, FILE *err,
			  bool *quit)
{
	cs_diag d;
	cs_diag_clear(&d);
	int failed = 0;
	if (cs_repl_line(r, line, echo, out, quit, &d) != CS_OK) {
		char msg[1024];
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(err, "error: %s\n", msg);
		failed = 1;
	}
	fflush(out);
	return failed;
}

int cs_repl_interactive(cs_repl *r, FILE *out, FILE *err)
{
	int failures = 0;
	bool quit = false;
	if (!isatty(STDIN_FILENO)) {
		char *line = NULL;
		size_t cap = 0;
		while (!quit && getline(&line, &cap, stdin) >= 0) {
			failures += run_typed_line(r, line, true, out, err, &quit);
		}
		free(line);
		return failures;
	}
	r->el = el_init(r->cfg.prog, stdin, out, err);
	r->hist = history_init();
	history(r->hist, &r->ev, H_SETSIZE, 1000);
	if (r->cfg.history_file)
		history(r->hist, &r->ev, H_LOAD, r->cfg.history_file);
	el_set(r->el, EL_CLIENTDATA, r);
	el_set(r->el, EL_PROMPT, prompt_fn);
	el_set(r->el, EL_EDITOR, "emacs");
	el_set(r->el, EL_HIST, history, r->hist);
	el_set(r->el, EL_ADDFN, "cs-complete", "complete a command or symbol", complete_fn);
	el_set(r->el, EL_BIND, "^I", "cs-complete", NULL);
	el_source(r->el, NULL);
	while (!quit) {
		int n = 0;
		const char *line = el_gets(r->el, &n);
		if (!line || n <= 0)
			break;
		if (*skip_ws(line) && *skip_ws(line) != '\n')
			history(r->hist, &r->ev, H_ENTER, line);
		failures += run_typed_line(r, line, false, out, err, &quit);
	}
	if (r->cfg.history_file)
		history(r->hist, &r->ev, H_SAVE, r->cfg.history_file);
	return failures;
}
