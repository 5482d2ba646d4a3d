/* SPDX-License-Identifier: MIT */
/* chainsim-hw: the capture replayer for a GPU machine (libc only, linked
 * statically where the C library allows it). */
#include "hw.h"
#include "rm_nv.h"

int main(int argc, char **argv)
{
	cs_hw_rm_nv nv;
	cs_hw_rm_nv_init(&nv, NULL, NULL);
	return cs_hw_main(argc, argv, &cs_hw_rm_nv_ops, &nv);
}
