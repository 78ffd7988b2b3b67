"""expect_exit.py CODE COMMAND...: runs COMMAND with its output passed through
and succeeds only when it exits with status CODE (lit's `not` accepts any
failure; onnxc-run's 1 and 2 mean different things)."""
import subprocess
import sys

want = int(sys.argv[1])
sys.stdout.flush()
got = subprocess.run(sys.argv[2:]).returncode
if got != want:
    print("expect_exit.py: exit status %d, expected %d" % (got, want), file=sys.stderr)
    sys.exit(1)
