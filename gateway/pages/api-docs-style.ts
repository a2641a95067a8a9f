/**
 * Our few rules over Swagger UI's stylesheet for /docs (routes/api-docs.ts serves them as
 * /docs/assets/docs.css, after swagger-ui.css, from this origin under the page's CSP). Swagger UI is laid out
 * for a desktop: on a phone its operation rows squeeze the operation id into a column a few letters wide, the
 * responses table gives a third of the width to an empty "Links" column, and a schema is shown in a box a
 * third of the screen wide. Under 640 px these rules let a long path wrap, put the operation id on a line of
 * its own, stack each response's code above its description and schema, and let a schema use the width,
 * wrapping long property names; nothing here changes the desktop layout. Selectors are those of
 * swagger-ui-dist 5 (package.json pins it). test/browser/api-docs.test.ts checks that nothing is wider than
 * the phone and screenshots both sizes.
 */
export const DOCS_STYLE = `
body{margin:0;background:#fff}
.swagger-ui .opblock-summary-path{overflow-wrap:anywhere}
@media (max-width:640px){
.swagger-ui .wrapper{padding:0 12px}
.swagger-ui .information-container .info{margin:20px 0 12px}
.swagger-ui .info .title{font-size:28px}
.swagger-ui .info .title small{top:-4px}
.swagger-ui .info .description p,.swagger-ui .info li{font-size:14px}
.swagger-ui .scheme-container{padding:12px 0;margin:0 0 12px;box-shadow:none;border-top:1px solid #e5e7eb;border-bottom:1px solid #e5e7eb}
.swagger-ui .scheme-container .schemes{flex-wrap:wrap;gap:12px;align-items:flex-end}
.swagger-ui .scheme-container .schemes>.schemes-server-container,.swagger-ui .scheme-container .schemes .servers{width:100%}
.swagger-ui .scheme-container .schemes>.schemes-server-container>div{flex:1 1 100%;min-width:0}
.swagger-ui .scheme-container .servers>label{display:block;margin:0}
.swagger-ui .scheme-container .schemes>.schemes-server-container>label select,.swagger-ui .scheme-container .servers select{width:100%;max-width:100%}
.swagger-ui .scheme-container .auth-wrapper{justify-content:flex-start}
.swagger-ui .scheme-container .auth-wrapper .authorize{margin:0}
.swagger-ui .filter-container{padding:0 12px;box-sizing:border-box}.swagger-ui .filter-container .filter{padding:0;width:100%;flex:1 1 auto}
.swagger-ui .filter-container .filter .operation-filter-input{width:100%;min-width:0;max-width:none;margin:12px 0;box-sizing:border-box}
.swagger-ui .opblock-tag{font-size:20px;padding:8px 0}
.swagger-ui .opblock-tag small{display:none}
.swagger-ui .opblock{margin:0 0 8px}
.swagger-ui .opblock .opblock-summary{padding:4px 2px 4px 4px}
.swagger-ui .opblock .opblock-summary-control{flex-wrap:wrap;align-items:flex-start;padding-right:0;min-width:0}
.swagger-ui .opblock .opblock-summary-method{min-width:52px;padding:5px 0;font-size:12px;margin-top:2px}
.swagger-ui .opblock .opblock-summary-path-description-wrapper{flex:1 1 0;min-width:0;flex-direction:column;align-items:flex-start;padding:0 0 0 8px;gap:2px}
.swagger-ui .opblock .opblock-summary-path{font-size:13px;max-width:100%;padding:0;flex:none}
.swagger-ui .opblock .opblock-summary-description{font-size:12px;flex:none;word-break:normal}
.swagger-ui .opblock .opblock-summary-operation-id{flex:1 0 100%;box-sizing:border-box;order:3;font-size:11px;color:#6b7280;padding:2px 0 0 60px;word-break:normal;overflow-wrap:anywhere}
.swagger-ui .opblock .view-line-link{display:none}
.swagger-ui .opblock .opblock-section-header{padding:8px 10px;flex-wrap:wrap;gap:6px}
.swagger-ui .opblock-description-wrapper,.swagger-ui .opblock-external-docs-wrapper,.swagger-ui .opblock-title_normal{padding:10px}
.swagger-ui .opblock-description-wrapper p{font-size:13px}
.swagger-ui .table-container{padding:10px}
.swagger-ui table.parameters,.swagger-ui table.parameters tbody,.swagger-ui table.responses-table,.swagger-ui table.responses-table tbody{display:block;width:100%}
.swagger-ui table.parameters thead{display:none}
.swagger-ui table.parameters tr{display:flex;flex-direction:column;padding:8px 0;border-bottom:1px solid #eef0f4}
.swagger-ui table.parameters tbody tr td{display:block;width:auto;max-width:none;padding:2px 0}
.swagger-ui .parameters-col_description input,.swagger-ui .parameters-col_description select{width:100%;max-width:100%}
.swagger-ui .responses-inner{padding:10px}
.swagger-ui .responses-inner h4,.swagger-ui .responses-inner h5{font-size:13px}
.swagger-ui table.responses-table thead{display:none}
.swagger-ui table.responses-table tr.response{display:flex;flex-direction:column;border-top:1px solid #eef0f4;padding:8px 0}
.swagger-ui table.responses-table tbody tr td{display:block;width:auto;max-width:none;padding:2px 0}
.swagger-ui table.responses-table td.response-col_status{font-weight:700;font-size:14px}
.swagger-ui table.responses-table td.response-col_links{display:none}
.swagger-ui .response-col_description__inner div.markdown,.swagger-ui .response-col_description__inner div.renderedMarkdown{padding:0 0 6px}
.swagger-ui .response-control-media-type{flex-wrap:wrap}
.swagger-ui .response-control-media-type select,.swagger-ui .content-type-wrapper select{max-width:100%}
.swagger-ui .model-example{margin-top:6px}
.swagger-ui .model-example .tab{flex-wrap:wrap}
.swagger-ui .model-box{padding:6px;max-width:100%;box-sizing:border-box}
.swagger-ui .highlight-code,.swagger-ui .microlight{max-width:100%;overflow-x:auto;font-size:11px}
.swagger-ui .model{font-size:12px}
.swagger-ui table.model{width:100%}
.swagger-ui table.model tr.property-row td{padding:2px 0}
.swagger-ui table.model tr.property-row td:first-child{padding-right:8px;overflow-wrap:anywhere}
.swagger-ui table.model tr.property-row td:first-child,.swagger-ui table.model tr.property-row td:first-child *{white-space:normal}
.swagger-ui .model .property-details-container{max-width:100%}
.swagger-ui section.models{margin:12px 0 24px;border-radius:4px}
.swagger-ui section.models h4{font-size:16px;padding:8px 10px;margin:0}
.swagger-ui section.models.is-open{padding:0 0 12px}
.swagger-ui section.models .model-container{margin:0 8px 8px;max-width:none}
.swagger-ui section.models .model-container .models-jump-to-path{display:none}
.swagger-ui .model-container .model-box{overflow-wrap:anywhere}
.swagger-ui .dialog-ux .modal-ux{width:calc(100% - 24px);min-width:0;max-width:none}
}
`;
