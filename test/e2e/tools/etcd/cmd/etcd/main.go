// Command etcd is the etcd server, built from its published module for the end-to-end suite.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
