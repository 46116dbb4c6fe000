module ebprof.test/cgo

go 1.19
