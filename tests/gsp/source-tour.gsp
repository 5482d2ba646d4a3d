# The source-level debugger over one session, an item of issue 15 per step
# (tests/gsp test_cli gsp_cli.source_level_session_through_the_cli).
echo == list, break FILE:LINE, step and next by source line
list main
break fw.c:419
continue
next
step
bt
echo == print with types, expressions with spaces, x/s
print fw.stat_seq
print fw.objects
print $pc
print $pc + 2
set mem 0x800F0000 u8 0x68 0x69 0
x/s 0x800F0000
echo == locals, outer frames, casts
delete
rpc init
print *msgq.stat.write
rpc post GET_GSP_STATIC_INFO 1
break statq_free_slots
continue
info locals
frame 1
info locals
print (unsigned)count
print *(struct elem_header *)eh
up
print result
list
down
echo == help
help frame
help bt
