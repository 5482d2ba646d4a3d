/* The .chain scenario format, version 1 (DESIGN.md section 3): parse, then
 * execute against a device (sim/scenario*.c). */
#ifndef CHAINSIM_SCENARIO_H
#define CHAINSIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/device.h"
#include "chainsim/diag.h"

typedef struct cs_scenario cs_scenario;

/* Parse; every syntax error is answered here with file:line:col. base_dir is
 * where relative paths (load, module) resolve; NULL = the file's directory. */
cs_scenario *cs_scenario_load(const char *path, cs_diag *d);
cs_scenario *cs_scenario_parse(const char *text, size_t len, const char *name,
			       const char *base_dir, cs_diag *d);
void cs_scenario_free(cs_scenario *s);

cs_arch cs_scenario_arch(const cs_scenario *s); /* the `arch` line; hopper when absent */
const char *cs_scenario_name(const cs_scenario *s);

/* Execute the directives in order on dev (made with the scenario's arch).
 * Semantic errors (an unknown name, a value out of range, a file that cannot be
 * read) stop it with a located diagnosis and false. Expectations are evaluated
 * at the end, after cs_device_finish. */
bool cs_scenario_execute(cs_scenario *s, cs_device *dev, cs_diag *d);

typedef struct cs_expect_outcome {
	uint32_t line;
	char text[192];   /* the directive as written */
	bool held;
	char detail[256]; /* what was found, when it did not hold */
} cs_expect_outcome;

size_t cs_scenario_expect_count(const cs_scenario *s);
const cs_expect_outcome *cs_scenario_expect(const cs_scenario *s, size_t i);

#endif
