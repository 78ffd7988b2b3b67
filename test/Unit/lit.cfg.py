# -*- Python -*-
# The GoogleTest unit tests (unittests/), run as a nested lit suite: every
# executable named *-unittests under build/unittests is one group of tests.

import lit.formats

config.name = "onnxc-unit"
config.test_format = lit.formats.GoogleTest(".", "-unittests")
config.test_source_root = config.onnxc_unittests_dir
config.test_exec_root = config.onnxc_unittests_dir
