// This file implements the protocol methods seer does not provide.
// protocol v0.12.0 has no UnimplementedServer, and a method missing from
// the server would panic the process: every request here answers "method
// not found" and every notification is accepted and ignored.

package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

func notFound(method string) error {
	return jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "seer does not implement %s", method)
}

// Notifications seer ignores.

func (s *server) LogTrace(context.Context, *protocol.LogTraceParams) error             { return nil }
func (s *server) SetTrace(context.Context, *protocol.SetTraceParams) error             { return nil }
func (s *server) WillSave(context.Context, *protocol.WillSaveTextDocumentParams) error { return nil }
func (s *server) DidCreateFiles(context.Context, *protocol.CreateFilesParams) error    { return nil }
func (s *server) DidRenameFiles(context.Context, *protocol.RenameFilesParams) error    { return nil }
func (s *server) DidDeleteFiles(context.Context, *protocol.DeleteFilesParams) error    { return nil }

// Requests seer does not answer.

func (s *server) CodeLensResolve(context.Context, *protocol.CodeLens) (*protocol.CodeLens, error) {
	return nil, notFound(protocol.MethodCodeLensResolve)
}
func (s *server) ColorPresentation(context.Context, *protocol.ColorPresentationParams) ([]protocol.ColorPresentation, error) {
	return nil, notFound(protocol.MethodTextDocumentColorPresentation)
}
func (s *server) Completion(context.Context, *protocol.CompletionParams) (*protocol.CompletionList, error) {
	return nil, notFound(protocol.MethodTextDocumentCompletion)
}
func (s *server) CompletionResolve(context.Context, *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	return nil, notFound(protocol.MethodCompletionItemResolve)
}
func (s *server) Declaration(context.Context, *protocol.DeclarationParams) ([]protocol.Location, error) {
	return nil, notFound(protocol.MethodTextDocumentDeclaration)
}
func (s *server) Definition(context.Context, *protocol.DefinitionParams) ([]protocol.Location, error) {
	return nil, notFound(protocol.MethodTextDocumentDefinition)
}
func (s *server) DocumentColor(context.Context, *protocol.DocumentColorParams) ([]protocol.ColorInformation, error) {
	return nil, notFound(protocol.MethodTextDocumentDocumentColor)
}
func (s *server) DocumentHighlight(context.Context, *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	return nil, notFound(protocol.MethodTextDocumentDocumentHighlight)
}
func (s *server) DocumentLink(context.Context, *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	return nil, notFound(protocol.MethodTextDocumentDocumentLink)
}
func (s *server) DocumentLinkResolve(context.Context, *protocol.DocumentLink) (*protocol.DocumentLink, error) {
	return nil, notFound(protocol.MethodDocumentLinkResolve)
}
func (s *server) DocumentSymbol(context.Context, *protocol.DocumentSymbolParams) ([]any, error) {
	return nil, notFound(protocol.MethodTextDocumentDocumentSymbol)
}
func (s *server) FoldingRanges(context.Context, *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	return nil, notFound(protocol.MethodTextDocumentFoldingRange)
}
func (s *server) Formatting(context.Context, *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notFound(protocol.MethodTextDocumentFormatting)
}
func (s *server) Implementation(context.Context, *protocol.ImplementationParams) ([]protocol.Location, error) {
	return nil, notFound(protocol.MethodTextDocumentImplementation)
}
func (s *server) OnTypeFormatting(context.Context, *protocol.DocumentOnTypeFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notFound(protocol.MethodTextDocumentOnTypeFormatting)
}
func (s *server) PrepareRename(context.Context, *protocol.PrepareRenameParams) (*protocol.Range, error) {
	return nil, notFound(protocol.MethodTextDocumentPrepareRename)
}
func (s *server) RangeFormatting(context.Context, *protocol.DocumentRangeFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notFound(protocol.MethodTextDocumentRangeFormatting)
}
func (s *server) References(context.Context, *protocol.ReferenceParams) ([]protocol.Location, error) {
	return nil, notFound(protocol.MethodTextDocumentReferences)
}
func (s *server) Rename(context.Context, *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	return nil, notFound(protocol.MethodTextDocumentRename)
}
func (s *server) SignatureHelp(context.Context, *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	return nil, notFound(protocol.MethodTextDocumentSignatureHelp)
}
func (s *server) Symbols(context.Context, *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	return nil, notFound(protocol.MethodWorkspaceSymbol)
}
func (s *server) TypeDefinition(context.Context, *protocol.TypeDefinitionParams) ([]protocol.Location, error) {
	return nil, notFound(protocol.MethodTextDocumentTypeDefinition)
}
func (s *server) WillSaveWaitUntil(context.Context, *protocol.WillSaveTextDocumentParams) ([]protocol.TextEdit, error) {
	return nil, notFound(protocol.MethodTextDocumentWillSaveWaitUntil)
}
func (s *server) ShowDocument(context.Context, *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	return nil, notFound(protocol.MethodShowDocument)
}
func (s *server) WillCreateFiles(context.Context, *protocol.CreateFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notFound(protocol.MethodWillCreateFiles)
}
func (s *server) WillRenameFiles(context.Context, *protocol.RenameFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notFound(protocol.MethodWillRenameFiles)
}
func (s *server) WillDeleteFiles(context.Context, *protocol.DeleteFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notFound(protocol.MethodWillDeleteFiles)
}
func (s *server) CodeLensRefresh(context.Context) error {
	return notFound(protocol.MethodCodeLensRefresh)
}
func (s *server) PrepareCallHierarchy(context.Context, *protocol.CallHierarchyPrepareParams) ([]protocol.CallHierarchyItem, error) {
	return nil, notFound(protocol.MethodTextDocumentPrepareCallHierarchy)
}
func (s *server) IncomingCalls(context.Context, *protocol.CallHierarchyIncomingCallsParams) ([]protocol.CallHierarchyIncomingCall, error) {
	return nil, notFound(protocol.MethodCallHierarchyIncomingCalls)
}
func (s *server) OutgoingCalls(context.Context, *protocol.CallHierarchyOutgoingCallsParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	return nil, notFound(protocol.MethodCallHierarchyOutgoingCalls)
}
func (s *server) SemanticTokensFull(context.Context, *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	return nil, notFound(protocol.MethodSemanticTokensFull)
}
func (s *server) SemanticTokensFullDelta(context.Context, *protocol.SemanticTokensDeltaParams) (any, error) {
	return nil, notFound(protocol.MethodSemanticTokensFullDelta)
}
func (s *server) SemanticTokensRange(context.Context, *protocol.SemanticTokensRangeParams) (*protocol.SemanticTokens, error) {
	return nil, notFound(protocol.MethodSemanticTokensRange)
}
func (s *server) SemanticTokensRefresh(context.Context) error {
	return notFound(protocol.MethodSemanticTokensRefresh)
}
func (s *server) LinkedEditingRange(context.Context, *protocol.LinkedEditingRangeParams) (*protocol.LinkedEditingRanges, error) {
	return nil, notFound(protocol.MethodLinkedEditingRange)
}
func (s *server) Moniker(context.Context, *protocol.MonikerParams) ([]protocol.Moniker, error) {
	return nil, notFound(protocol.MethodMoniker)
}

// Request answers the methods the protocol package does not know.
func (s *server) Request(ctx context.Context, method string, params any) (any, error) {
	return nil, notFound(method)
}
