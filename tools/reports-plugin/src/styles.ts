/** The plugin's few styles, scoped by class (`rp-`), logical properties for right-to-left. */
export const STYLES = `
.rp-controls{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;padding:8px 12px;font:14px system-ui,sans-serif}
.rp-controls input,.rp-controls select,.rp-controls button{font:inherit}
.rp-field,.rp-range{display:inline-flex;align-items:center;gap:6px;max-width:100%}
.rp-field select{min-width:0;max-width:100%}
.rp-range{gap:8px 16px;flex-wrap:wrap}
.rp-problem{flex-basis:100%;margin:0;color:#a4262c}
.rp-root{padding:0 12px;font:14px system-ui,sans-serif}
.rp-scroll{overflow-x:auto;max-width:100%}
.rp-table{border-collapse:collapse;width:100%}
.rp-table th,.rp-table td{padding:4px 8px;border-block-end:1px solid #ddd;text-align:start}
.rp-table td{white-space:nowrap}
.rp-table .rp-num{font-variant-numeric:tabular-nums;text-align:end;unicode-bidi:isolate}
.rp-error{color:#a4262c}
.rp-charts{display:flex;flex-wrap:wrap;gap:16px;margin-block-end:12px}
.rp-chart{flex:1 1 320px;min-width:0;max-width:560px;margin:0}
.rp-chart figcaption{font-weight:600;margin-block-end:4px}
.rp-chart svg{display:block;width:100%;height:auto;font-size:11px;fill:#57606a}
@media (max-width:480px){.rp-chart svg{font-size:16px}}
.rp-bar{fill:#0969da}.rp-bar-compare{fill:#bc4c00}
.rp-grid,.rp-axis{stroke:#d0d7de}
.rp-legend{margin:4px 0 0;display:flex;gap:6px;align-items:center;flex-wrap:wrap}
.rp-key{display:inline-block;width:10px;height:10px;background:#0969da}
.rp-key-compare{background:#bc4c00;margin-inline-start:12px}
`;
