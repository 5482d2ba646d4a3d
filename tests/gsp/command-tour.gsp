# Every debugger command and alias, with its usage errors, read as an
# interactive session reads its standard input: a failing line does not end
# it (tests/gsp test_cli gsp_cli.every_command_through_an_interactive_session).
help
help rpc
help b
help bt
help nosuch
help a b
h x
regs
regs pc
info registers
info map
info map all
info snapshots
info snapshots all
info line
info bogus
i all-registers
info symbol main
break main
b main
tbreak fw.c:419
watch 0x80000000
watch 0x80000000 8
rwatch 0x80000000
awatch 0x80000000 2
awatch
info breakpoints
info breakpoints 1
delete 99
delete abc
delete 1
d
continue 100
c
next
n
n 3
step
s 2
step 1 2
stepi
si 3
stepi 1 2
nexti
ni 2
nexti 1 2 3
finish now
finish
list
l
list main
list fw.c:400
x/4xw $pc
x/2i $pc
x/s $sp
xx
x/
disassemble
disas main 3
disassemble 1 2 3
bt
backtrace
bt full
where
frame
f 0
f 999
frame x
up
down
down 5
up 1 2
print $pc
p $sp + 8
print
print fw.stat_seq
set $a0 = 5
set $a1 7
set mem 0x800F0000 u8 1 2
set mem 0x800F0000 u128 1
set
call
call main 1 2 3 4 5 6 7 8 9
snapshot save one
snapshot restore one
snapshot
snapshot bogus one
snapshot restore none
msgq
msgq init again
msgq init
msgq monitor on
msgq monitor off
msgq monitor maybe
msgq bogus
rpc
rpc bogus
rpc init now
rpc init
rpc recv
rpc recv all
rpc post GET_GSP_STATIC_INFO 1
rpc post GET_GSP_STATIC_INFO 1 2
rpc drain 1000
rpc drain 1000 2
rpc send 99999
mmio trace on
mmio trace off
mmio trace maybe
mmio
log
log all
echo hello  world
echo
nosuchcommand
y/2 0
quit
echo never
