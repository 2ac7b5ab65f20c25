// Local Redocly plugin with the house rules of the Care API description (see redocly.yaml). Each rule is in its own
// module under rules/; test/lint-rules.test.ts makes each one fire on a small bad document.
import ResponseEnvHeader from './rules/response-env-header.js';
import Operation401 from './rules/operation-401.js';
import ErrorEnvelope from './rules/error-envelope.js';
import ListOperationShape from './rules/list-operation-shape.js';
import PropertyDescriptionExample from './rules/property-description-example.js';
import ParameterDescriptionExample from './rules/parameter-description-example.js';
import LinkTargets from './rules/link-targets.js';

export default function carePlugin() {
  return {
    id: 'care',
    rules: {
      oas3: {
        'response-env-header': ResponseEnvHeader,
        'operation-401': Operation401,
        'error-envelope': ErrorEnvelope,
        'list-operation-shape': ListOperationShape,
        'property-description-example': PropertyDescriptionExample,
        'parameter-description-example': ParameterDescriptionExample,
        'link-targets': LinkTargets,
      },
    },
  };
}
