import { Component, type ReactNode } from 'react';

/**
 * Catches what throws while the REPL draws (a bug): instead of ink's own overview with its stack,
 * the REPL stops and the error is reported by the front end like any other, as one line.
 */
export class CrashBoundary extends Component<{ children?: ReactNode; onCrash(error: unknown): void }, { crashed: boolean }> {
  override state = { crashed: false };

  static getDerivedStateFromError(): { crashed: boolean } {
    return { crashed: true };
  }

  override componentDidCatch(error: unknown): void {
    this.props.onCrash(error);
  }

  override render(): ReactNode {
    return this.state.crashed ? null : this.props.children;
  }
}
