// Command etcd is the etcd server at the version k8s.io/kubernetes v1.37.2 requires, built here
// because no release tarball can be downloaded on these machines.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
