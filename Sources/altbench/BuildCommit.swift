// The commit this binary was built from. `scripts/release.sh` writes the commit here for the
// release build and puts this file back afterwards; a build from source leaves it nil.
let buildCommit: String? = nil
