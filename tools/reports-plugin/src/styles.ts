/**
 * The plugin's few styles, scoped by class (`rp-`), logical properties for right-to-left. Text
 * takes the host's colour; the rest picks light or dark by the host's `color-scheme` (a host
 * that follows `prefers-color-scheme` declares `light dark`). Print shows the report, not the
 * controls.
 */
export const STYLES = `
.rp-controls{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;padding:8px 12px;font:14px system-ui,sans-serif}
.rp-controls input,.rp-controls select,.rp-controls button{font:inherit}
.rp-field,.rp-range{display:inline-flex;align-items:center;gap:6px;max-width:100%}
.rp-field select{min-width:0;max-width:100%}
.rp-range{gap:8px 16px;flex-wrap:wrap}
.rp-fold{display:none}
@media (max-width:480px){.rp-fold{display:block;flex:1 1 100%;text-align:start}.rp-folded>:not(.rp-fold,.rp-problem,.rp-error){display:none}}
.rp-problem{flex-basis:100%;margin:0;color:var(--rp-red)}
.rp-root,.rp-controls{--rp-red:light-dark(#a4262c,#ff8182);--rp-line:light-dark(#d0d7de,#30363d);--rp-bar:light-dark(#0969da,#4493f8);--rp-bar2:light-dark(#bc4c00,#f0883e)}
.rp-root{padding:0 12px;font:14px system-ui,sans-serif}
.rp-scroll{overflow-x:auto;max-width:100%}
.rp-table{border-collapse:collapse;width:100%}
.rp-table th,.rp-table td{padding:4px 8px;border-block-end:1px solid var(--rp-line);text-align:start}
.rp-table td{white-space:nowrap}
.rp-table .rp-num{font-variant-numeric:tabular-nums;text-align:end;unicode-bidi:isolate}
.rp-error{color:var(--rp-red)}
.rp-cards h3{font-size:14px;margin:0 0 4px}.rp-cards ul{display:flex;flex-wrap:wrap;gap:12px;list-style:none;padding:0;margin:0 0 12px}
.rp-card{display:flex;flex-direction:column;gap:2px;padding:8px 12px;border:1px solid var(--rp-line);border-radius:6px;min-width:140px}
.rp-card strong{font-size:20px;font-variant-numeric:tabular-nums}
.rp-charts{display:flex;flex-wrap:wrap;gap:16px;margin-block-end:12px}
.rp-chart{flex:1 1 320px;min-width:0;max-width:560px;margin:0}
.rp-chart figcaption{font-weight:600;margin-block-end:4px}
.rp-chart svg{display:block;width:100%;height:auto;font-size:11px;fill:currentColor}
@media (max-width:480px){.rp-chart svg{font-size:16px}}
.rp-sellers{margin:0;padding:0;list-style:none}.rp-sellers li{display:grid;grid-template-columns:minmax(0,12em) 1fr auto;gap:8px;align-items:center;overflow-wrap:anywhere}.rp-hbar{display:block;height:12px;background:var(--rp-bar)}
.rp-bar{fill:var(--rp-bar)}.rp-bar-compare{fill:var(--rp-bar2)}
.rp-grid,.rp-axis{stroke:var(--rp-line)}
.rp-legend{margin:4px 0 0;display:flex;gap:6px;align-items:center;flex-wrap:wrap}
.rp-key{display:inline-block;width:10px;height:10px;background:var(--rp-bar)}
.rp-key-compare{background:var(--rp-bar2);margin-inline-start:12px}
.rp-period{display:none}
@media print{.rp-controls{display:none}.rp-period{display:block}.rp-scroll{overflow:visible}.rp-chart,.rp-table tr{break-inside:avoid}}
`;
