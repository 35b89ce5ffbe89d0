// A stand-in for the `vscode` module, enough for the controller: the tests
// bundle it in place of `vscode` (scripts/build.mjs) and drive it through
// `stub`.

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  dispose(): void {
    this.fn();
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    if (typeof a === "number") {
      this.start = new Position(a, b as number);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
}

export class Uri {
  private constructor(private readonly value: string) {}
  static parse(s: string): Uri {
    return new Uri(s);
  }
  static file(p: string): Uri {
    return new Uri("file://" + p);
  }
  toString(): string {
    return this.value;
  }
}

export class CancellationTokenSource {
  private listeners: Listener<void>[] = [];
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: (l: Listener<void>) => {
      this.listeners.push(l);
      return new Disposable();
    },
  };
  cancel(): void {
    this.token.isCancellationRequested = true;
    for (const l of this.listeners) l();
  }
  dispose(): void {}
}

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (l: Listener<T>) => {
    this.listeners.push(l);
    return new Disposable(() => (this.listeners = this.listeners.filter((x) => x !== l)));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export enum LogLevel {
  Off = 0,
  Trace = 1,
  Debug = 2,
  Info = 3,
  Warning = 4,
  Error = 5,
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
  Two = 2,
}

export interface StubPanel {
  viewType: string;
  title: string;
  showOptions: unknown;
  options: { enableScripts?: boolean; localResourceRoots?: unknown[] };
  webview: { html: string };
  revealed: number;
  disposed: boolean;
  reveal(column?: ViewColumn): void;
  onDidDispose(l: () => void): Disposable;
  dispose(): void;
}

export interface StubItem {
  id: string;
  name?: string;
  text: string;
  tooltip?: string;
  command?: string;
  shown: boolean;
  disposed: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

/** What the tests set and read. */
export const stub = {
  trusted: true,
  config: {} as Record<string, unknown>,
  diagnostics: new Map<string, unknown[]>(),
  messages: [] as { level: string; text: string }[],
  items: [] as StubItem[],
  progress: [] as { title?: string; messages: string[]; source: CancellationTokenSource }[],
  shown: [] as { uri: string; options: unknown }[],
  panels: [] as StubPanel[],
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  activeTextEditor: undefined as unknown,
  /** Called with each withProgress's cancellation source as it starts. */
  onProgressStart: undefined as ((s: CancellationTokenSource) => void) | undefined,
  reset(): void {
    this.trusted = true;
    this.config = {};
    this.diagnostics.clear();
    this.messages = [];
    this.items = [];
    this.progress = [];
    this.shown = [];
    this.panels = [];
    this.commands.clear();
    this.activeTextEditor = undefined;
    this.onProgressStart = undefined;
  },
};

function message(level: string) {
  return (text: string, ..._items: unknown[]) => {
    stub.messages.push({ level, text });
    return Promise.resolve(undefined);
  };
}

export const window = {
  createStatusBarItem(id: string, _alignment?: StatusBarAlignment, _priority?: number): StubItem {
    const item: StubItem = {
      id,
      text: "",
      shown: false,
      disposed: false,
      show() {
        this.shown = true;
      },
      hide() {
        this.shown = false;
      },
      dispose() {
        this.disposed = true;
      },
    };
    stub.items.push(item);
    return item;
  },
  showInformationMessage: message("info"),
  showWarningMessage: message("warning"),
  showErrorMessage: message("error"),
  async withProgress<R>(
    options: { title?: string },
    task: (p: { report: (v: { message?: string }) => void }, token: CancellationTokenSource["token"]) => Promise<R>,
  ): Promise<R> {
    const source = new CancellationTokenSource();
    const rec = { title: options.title, messages: [] as string[], source };
    stub.progress.push(rec);
    stub.onProgressStart?.(source);
    return task({ report: (v) => v.message && rec.messages.push(v.message) }, source.token);
  },
  createWebviewPanel(viewType: string, title: string, showOptions: unknown, options: StubPanel["options"] = {}): StubPanel {
    const disposeListeners: (() => void)[] = [];
    const panel: StubPanel = {
      viewType,
      title,
      showOptions,
      options,
      webview: { html: "" },
      revealed: 0,
      disposed: false,
      reveal() {
        this.revealed++;
      },
      onDidDispose(l: () => void) {
        disposeListeners.push(l);
        return new Disposable();
      },
      dispose() {
        this.disposed = true;
        for (const l of disposeListeners) l();
      },
    };
    stub.panels.push(panel);
    return panel;
  },
  async showTextDocument(uri: Uri, options?: unknown): Promise<void> {
    stub.shown.push({ uri: uri.toString(), options });
  },
  get activeTextEditor(): unknown {
    return stub.activeTextEditor;
  },
};

export const workspace = {
  get isTrusted(): boolean {
    return stub.trusted;
  },
  getConfiguration(section: string) {
    return {
      get<T>(key: string, dflt?: T): T | undefined {
        const v = stub.config[`${section}.${key}`];
        return (v === undefined ? dflt : v) as T | undefined;
      },
    };
  },
};

export const languages = {
  getDiagnostics(uri: Uri): unknown[] {
    return stub.diagnostics.get(uri.toString()) ?? [];
  },
};

export const commands = {
  registerCommand(name: string, fn: (...args: unknown[]) => unknown): Disposable {
    stub.commands.set(name, fn);
    return new Disposable(() => stub.commands.delete(name));
  },
  async executeCommand(name: string, ...args: unknown[]): Promise<unknown> {
    return stub.commands.get(name)?.(...args);
  },
};
