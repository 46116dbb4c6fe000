module ebprof.test/chain

go 1.19
