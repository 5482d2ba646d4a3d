# Finds why the GSP's reply ring (the status queue) desynchronizes under load.
# Run: chainsim gsp FIRMWARE --map fixtures/firmware/gsp-fixture.map --script THIS
echo == 1. boot: run until the firmware announces GSP_INIT_DONE
rpc init
echo == 2. the host lags: post 24 GET_GSP_STATIC_INFO requests (3-element replies), read nothing
rpc post GET_GSP_STATIC_INFO 24
echo == 3. stop where the firmware sizes the status queue for its first reply
tbreak statq_free_slots
continue
bt
echo == 4. watch the status queue's cursors: which one does the free-space check read?
rwatch msgq.stat.read
rwatch msgq.cmd.read
watch msgq.stat.write
continue
continue
delete
echo == 5. keep the host lagging and let the firmware run
continue 5000000
msgq
echo == 6. the host reads its replies
rpc drain
