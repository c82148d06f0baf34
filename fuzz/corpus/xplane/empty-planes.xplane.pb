
	/host:CPU
/device:TPU:1"	test-host