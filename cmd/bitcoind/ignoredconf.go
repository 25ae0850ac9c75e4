package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkIgnoredConf reports a bitcoin.conf in the data directory in use
// that is not the configuration file read, as bitcoind does at start-up:
// with -noconf it is only logged; when another file was read (through
// -conf, or a datadir= line of the default data directory's file) it
// stops start-up unless -allowignoredconf turns it into a warning.
// origDatadir is the data directory before any config file moved it.
func checkIgnoredConf(a *args, datadir, origDatadir, confPath string) error {
	inDir := filepath.Join(datadir, "bitcoin.conf")
	st, err := os.Stat(inDir)
	if err != nil {
		return nil
	}
	if confPath == "" {
		a.warnings = append(a.warnings, fmt.Sprintf("[InitConfig] Data directory %q contains a %q file which is explicitly ignored using -noconf.", datadir, "bitcoin.conf"))
		return nil
	}
	if read, err := os.Stat(confPath); err == nil && os.SameFile(st, read) {
		return nil
	}
	source := fmt.Sprintf("data directory %q", origDatadir)
	if conf := a.getString("conf", ""); a.isSet("conf") && conf != "" {
		source = fmt.Sprintf("command line argument %q", "-conf="+conf)
	}
	msg := fmt.Sprintf("Data directory %q contains a %q file which is ignored, because a different configuration file %q from %s is being used instead. "+
		"Possible ways to address this would be to:\n"+
		"- Delete or rename the %q file in data directory %q.\n"+
		"- Change datadir= or conf= options to specify one configuration file, not two, and use includeconf= to include any other configuration files.\n"+
		"- Set allowignoredconf=1 option to treat this condition as a warning, not an error.",
		datadir, "bitcoin.conf", confPath, source, "bitcoin.conf", datadir)
	if a.getBool("allowignoredconf", false) {
		a.warnings = append(a.warnings, "Warning: "+msg)
		return nil
	}
	return fmt.Errorf("%s", msg)
}
