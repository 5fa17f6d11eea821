package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
	"github.com/pidex-dev/pidex/pi"
)

// Shell completion: cobra's `pidex completion bash|zsh|fish|powershell`
// writes the script; the script asks `pidex __complete …` for the words.
// Values come from where the options take them — sessions and entries
// from the catalog, roles and sources from the registry's vocabulary,
// groupings and orders from the domain — never from a list kept here. A
// completion answers from the catalog as it is: it never refreshes (it
// must be instant) and prints nothing on stderr.

const noFiles = cobra.ShellCompDirectiveNoFileComp

// completeSession completes a SESSION argument (the first): ids, with the
// session's title as their description, and names.
func (a *app) completeSession(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, noFiles
	}
	return a.sessionWords(cmd, toComplete), noFiles
}

// completeSessionFlag completes --session.
func (a *app) completeSessionFlag(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return a.sessionWords(cmd, toComplete), noFiles
}

func (a *app) sessionWords(cmd *cobra.Command, prefix string) []cobra.Completion {
	a.quiet = true
	a.noRefresh = true // completions read the catalog as it is
	eng, err := a.engine(cmd.Context())
	if err != nil {
		return nil
	}
	ss, err := eng.List(cmd.Context(), pidex.ListOptions{})
	if err != nil {
		return nil
	}
	names := map[string]int{} // a name two sessions share resolves neither
	for i := range ss {
		if ss[i].Name != nil {
			names[*ss[i].Name]++
		}
	}
	var out []cobra.Completion
	lower := strings.ToLower(prefix)
	for i := range ss {
		s := &ss[i]
		title := text.CutWidth(view.SessionTitle(s, 60), 60)
		if strings.HasPrefix(s.ID, prefix) {
			out = append(out, cobra.CompletionWithDesc(s.ID, title))
		}
		if s.Name != nil && *s.Name != "" && names[*s.Name] == 1 && strings.HasPrefix(strings.ToLower(*s.Name), lower) {
			out = append(out, cobra.CompletionWithDesc(*s.Name, s.ID))
		}
	}
	return out
}

// completeLeaf completes --leaf with the entries of the SESSION given.
func (a *app) completeLeaf(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, noFiles
	}
	a.quiet = true
	a.noRefresh = true // completions read the catalog as it is
	eng, err := a.engine(cmd.Context())
	if err != nil {
		return nil, noFiles
	}
	ref, err := eng.Resolve(cmd.Context(), args[0], a.machine)
	if err != nil {
		return nil, noFiles
	}
	roots, err := eng.Tree(cmd.Context(), ref, pidex.TreeOptions{})
	if err != nil {
		return nil, noFiles
	}
	var out []cobra.Completion
	view.Walk(roots, func(n *pidex.TreeNode) bool {
		if strings.HasPrefix(n.ID, toComplete) {
			out = append(out, cobra.CompletionWithDesc(n.ID, n.Kind()))
		}
		return true
	})
	return out, noFiles
}

// words completes a value that is one of words.
func words(ws ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, w := range ws {
			if strings.HasPrefix(w, toComplete) {
				out = append(out, w)
			}
		}
		return out, noFiles
	}
}

// commaWords completes a comma-separated list of words, each once
// (--by day,model): the words already given stay, the last one is
// completed, and no space follows (another may come).
func commaWords(ws ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		done, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			done, last = toComplete[:i+1], toComplete[i+1:]
		}
		given := strings.Split(strings.TrimSuffix(done, ","), ",")
		var out []cobra.Completion
		for _, w := range ws {
			if strings.HasPrefix(w, last) && !slices.Contains(given, w) {
				out = append(out, done+w)
			}
		}
		return out, noFiles | cobra.ShellCompDirectiveNoSpace
	}
}

// completeZone completes --tz with the IANA zones the system knows.
func completeZone(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, z := range zones() {
		if strings.HasPrefix(strings.ToLower(z), strings.ToLower(toComplete)) {
			out = append(out, z)
		}
	}
	return out, noFiles
}

// zoneName is what an IANA zone file's name looks like (Europe/Paris,
// America/Argentina/Buenos_Aires, UTC, Etc/GMT+5); the folders beside
// them (posix/, right/) and data files (zone.tab, tzdata.zi) are not.
var zoneName = text.LazyRegexp(`^[A-Z][A-Za-z0-9_+-]*(/[A-Z][A-Za-z0-9_+-]*)*$`)

// zones lists the time zones of the system's database, where Go's time
// package reads them ($ZONEINFO first).
func zones() []string {
	dirs := []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ", "/etc/zoneinfo"}
	if z := os.Getenv("ZONEINFO"); z != "" {
		dirs = append([]string{z}, dirs...)
	}
	for _, dir := range dirs {
		var out []string
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == dir {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel == "posix" || rel == "right" || !zoneName().MatchString(rel) {
					return fs.SkipDir
				}
				return nil
			}
			if zoneName().MatchString(rel) && rel != "Factory" && rel != "SystemV" {
				out = append(out, rel)
			}
			return nil
		})
		if len(out) > 0 {
			slices.Sort(out)
			return out
		}
	}
	return []string{"UTC"}
}

// completions registers what each command's arguments and flags
// complete to.
func (a *app) completions(root *cobra.Command) {
	v := pi.Vocabulary()
	byName := map[string]*cobra.Command{}
	for _, c := range root.Commands() {
		byName[c.Name()] = c
		if c.ValidArgsFunction == nil {
			c.ValidArgsFunction = cobra.NoFileCompletions // QUERY, or nothing
		}
	}
	flag := func(cmd, name string, f cobra.CompletionFunc) {
		if c := byName[cmd]; c != nil && c.Flags().Lookup(name) != nil {
			_ = c.RegisterFlagCompletionFunc(name, f)
		}
	}
	for _, c := range []string{"show", "tree", "path", "resume", "export"} {
		byName[c].ValidArgsFunction = a.completeSession
	}
	for _, c := range []string{"show", "path", "resume", "export"} {
		flag(c, "leaf", a.completeLeaf)
	}
	flag("export", "format", words(pidex.ExportFormats...))
	flag("stats", "by", words(pidex.StatsKeys...))
	flag("stats", "branch", words(pidex.BranchAll, pidex.BranchActive, pidex.BranchAbandoned))
	flag("list", "sort", words(pidex.ListSorts...))
	flag("search", "role", words(v.RoleGroups...))
	flag("search", "branch", words(pidex.BranchAll, pidex.BranchActive))
	flag("search", "sort", words(pidex.SortRelevance, pidex.SortNewest))
	flag("search", "session", a.completeSessionFlag)
	flag("cost", "by", commaWords(pidex.CostKeys...))
	flag("cost", "source", commaWords(v.Sources...))
	flag("cost", "branch", words(pidex.BranchAll, pidex.BranchActive, pidex.BranchAbandoned))
	flag("cost", "tz", completeZone)
	flag("cost", "session", a.completeSessionFlag)
	for c, op := range map[string]pidex.Op{"list": pidex.OpList, "search": pidex.OpSearch, "cost": pidex.OpCost} {
		for _, f := range pidex.Filters(op) {
			if f.Match == pidex.OneOf {
				flag(c, f.Name, commaWords(f.Words...))
			}
		}
	}
	flag("sql", "format", words(render.FormatTable, render.FormatTSV, render.FormatCSV, render.FormatJSON, render.FormatNDJSON))
}
