"""genfiles — what the scenario generators share: write their files, or
check that the committed ones are exactly what they write (the `*-fresh`
checks of `make test`)."""
import os
import sys


def sync(tag, files, dirs, prefix, check):
    """files: [(path, text)]. check=False: write them. check=True: report any
    that differs or is missing, and any PREFIX*.jsonl in dirs the generator
    does not write; exit status 0 or 1."""
    if not check:
        for path, text in files:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        print("wrote %d files" % len(files))
        return 0
    bad = []
    for path, text in files:
        try:
            with open(path) as f:
                if f.read() != text:
                    bad.append(path + " differs")
        except OSError:
            bad.append(path + " is missing")
    want = {p for p, _ in files}
    for d in dirs:
        if os.path.isdir(d):
            for n in sorted(os.listdir(d)):
                p = os.path.join(d, n)
                if n.startswith(prefix) and n.endswith(".jsonl") and p not in want:
                    bad.append(p + " is not written by the generator")
    for b in bad:
        print("%s: %s" % (tag, b), file=sys.stderr)
    if bad:
        print("%s: regenerate with python3 %s and commit" % (tag, os.path.relpath(sys.argv[0])), file=sys.stderr)
        return 1
    print("%s: %d files as generated" % (tag, len(files)))
    return 0
