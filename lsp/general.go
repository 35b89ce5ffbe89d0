// This file implements the session's life cycle (initialize, initialized,
// shutdown, exit), the workspace folders and the configuration.

package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Command names, after gopls's tool.snake_case convention.
const (
	cmdPredict         = "seer.predict"
	cmdShowOtherAccess = "seer.showOtherAccess"
	cmdShowWitness     = "seer.showWitness"
)

// Initialize records the client's capabilities and folders and announces
// what seer does.
func (s *server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize was already called")
	}
	s.initialized = true
	s.caps = capsOf(params.Capabilities)
	for _, f := range params.WorkspaceFolders {
		s.addFolder(protocol.DocumentURI(f.URI))
	}
	if len(s.folders) == 0 && params.RootURI != "" {
		s.addFolder(params.RootURI)
	}
	if len(s.folders) == 0 && params.RootPath != "" {
		s.addFolder(uri.File(params.RootPath))
	}
	base, problems := parseConfig(DefaultConfig(), params.InitializationOptions)
	s.initConfig = base
	s.configs[""] = base
	for _, f := range s.folders {
		s.configs[f] = base
	}
	for _, p := range problems {
		s.log.Warn("initializationOptions", "problem", p)
	}
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{},
			},
			HoverProvider:      true,
			CodeLensProvider:   &protocol.CodeLensOptions{},
			CodeActionProvider: &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix}},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{
				Commands: []string{cmdPredict, cmdShowOtherAccess, cmdShowWitness},
			},
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
			},
		},
		ServerInfo: &protocol.ServerInfo{Name: "seer", Version: s.version()},
	}, nil
}

// addFolder adds a workspace folder. Called with s.mu held.
func (s *server) addFolder(u protocol.DocumentURI) {
	path, err := uriPath(u)
	if err != nil {
		s.log.Warn("ignoring workspace folder", "uri", u, "error", err)
		return
	}
	for _, f := range s.folders {
		if f == path {
			return
		}
	}
	s.folders = append(s.folders, path)
}

// Initialized fetches the configuration and asks for file events.
func (s *server) Initialized(ctx context.Context, params *protocol.InitializedParams) error {
	s.refetchConfig()
	go s.registerWatchers()
	return nil
}

// Shutdown stops the running predictions and answers once the
// notifications sent before it are written (a client may stop reading
// after the answer); the session then waits for exit.
func (s *server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.stopJobs()
	s.flush()
	return nil
}

// Exit ends the session: Serve returns once the connection is closed.
func (s *server) Exit(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exited {
		s.exited = true
		close(s.exit)
	}
	return s.conn.Close()
}

// DidChangeConfiguration re-fetches the configuration, or takes it from
// the notification when the client cannot be asked.
func (s *server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	s.mu.Lock()
	pull := s.caps.configuration
	if !pull {
		base, problems := parseConfig(s.configs[""], params.Settings)
		s.configs[""] = base
		for _, f := range s.folders {
			s.configs[f] = base
		}
		s.reportConfigProblems(problems)
	}
	s.mu.Unlock()
	if pull {
		s.refetchConfig()
	}
	return nil
}

// DidChangeWorkspaceFolders updates the folders and their configuration.
func (s *server) DidChangeWorkspaceFolders(ctx context.Context, params *protocol.DidChangeWorkspaceFoldersParams) error {
	s.mu.Lock()
	for _, f := range params.Event.Removed {
		if path, err := uriPath(protocol.DocumentURI(f.URI)); err == nil {
			for i, g := range s.folders {
				if g == path {
					s.folders = append(s.folders[:i], s.folders[i+1:]...)
					delete(s.configs, g)
					break
				}
			}
		}
	}
	for _, f := range params.Event.Added {
		s.addFolder(protocol.DocumentURI(f.URI))
	}
	s.mu.Unlock()
	s.refetchConfig()
	return nil
}

// refetchConfig starts asking the client for the "seer" section of each
// folder, if it can be asked. Predictions started meanwhile wait for the
// answer (configReady).
func (s *server) refetchConfig() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.caps.configuration {
		return
	}
	s.configGen++
	done := make(chan struct{})
	s.configDone = done
	folders := append([]string{""}, s.folders...)
	items := make([]protocol.ConfigurationItem, len(folders))
	for i, f := range folders {
		items[i].Section = "seer"
		if f != "" {
			items[i].ScopeURI = s.pathURI(f)
		}
	}
	go s.fetchConfig(s.configGen, folders, items, done)
}

func (s *server) fetchConfig(gen int, folders []string, items []protocol.ConfigurationItem, done chan struct{}) {
	defer close(done)
	var result []json.RawMessage
	if err := s.call(s.ctx, protocol.MethodWorkspaceConfiguration, &protocol.ConfigurationParams{Items: items}, &result); err != nil {
		s.log.Warn("fetching configuration", "error", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.configGen {
		return // a later fetch is under way
	}
	var problems []string
	for i, f := range folders {
		c := s.initConfig
		if i < len(result) {
			var v any
			if err := json.Unmarshal(result[i], &v); err == nil {
				var p []string
				c, p = parseConfig(c, v)
				problems = append(problems, p...)
			}
		}
		s.configs[f] = c
	}
	s.reportConfigProblems(problems)
	s.log.Info("configuration", "config", s.configs[""])
}

// configReady waits until the configuration asked for last has arrived
// (or the asking failed), calling waiting first when it has to wait;
// false: ctx ended first.
func (s *server) configReady(ctx context.Context, waiting func()) bool {
	s.mu.Lock()
	done := s.configDone
	s.mu.Unlock()
	if done == nil {
		return ctx.Err() == nil
	}
	select {
	case <-done:
		return ctx.Err() == nil
	default:
	}
	waiting()
	select {
	case <-done:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}

// reportConfigProblems tells the user about settings seer ignored.
func (s *server) reportConfigProblems(problems []string) {
	if len(problems) == 0 {
		return
	}
	seen := map[string]bool{}
	var uniq []string
	for _, p := range problems {
		if !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	go s.showMessage(protocol.MessageTypeWarning, "ignoring settings: %s", strings.Join(uniq, "; "))
}

// configFor returns the configuration for a package directory. Called
// with s.mu held.
func (s *server) configFor(dir string) Config {
	if c, ok := s.configs[s.folderOf(dir)]; ok {
		return c
	}
	if c, ok := s.configs[""]; ok {
		return c
	}
	return DefaultConfig()
}

func (s *server) version() string {
	if s.opts.Version == "" {
		return "devel"
	}
	return s.opts.Version
}
