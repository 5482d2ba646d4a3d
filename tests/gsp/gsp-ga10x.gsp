# NVIDIA's GSP-RM (firmware-nvidia-gsp, gsp_ga10x.bin) from its entry, as far
# as the model goes (docs/gsp.md, "NVIDIA's GSP firmware"). Run:
#   chainsim gsp --image /lib/firmware/nvidia/535.261.03/gsp_ga10x.bin --raw-base 0 \
#     --map fixtures/firmware/gsp-ga10x.map --mmio-log --script THIS
echo == the entry's second argument (a1) selects the boot path
set $a1 = 1
echo == the chip architecture the boot path checks: bits 28:24 of local register 0xa00 (0x17 Ampere)
set mem 0x2000000000000a00 u32 0x17000000
mmio trace on
continue 5000000
