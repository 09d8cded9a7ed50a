// Veil operator: placeholder workspace until the Kubernetes issue lands.
export const OPERATOR_NAME = "veil-operator";
