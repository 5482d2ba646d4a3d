/* SPDX-License-Identifier: MIT */
/* chainsim-gsp: `chainsim gsp` as its own program. It alone links Unicorn
 * (GPL-2), so the chainsim command stays MIT, and the commands that never touch
 * GSP firmware do not pay for loading Unicorn (about 80,000 relocations, most
 * of chainsim's start-up time). `chainsim gsp ARGS` runs this program. */
#include "commands.h"

int main(int argc, char **argv)
{
	return cs_cmd_gsp(argc, argv);
}
